// probe_timing.hpp: what the one-file GPU probes in bench/ share: a CUDA error
// check that ends the probe, and event-timed medians of repeated calls.
// (bench_gemm_bench and bench_rowwise_bench time through their harnesses.)
#pragma once

#include <algorithm>
#include <cerrno>  // program_invocation_short_name (glibc)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

namespace ktune::probe {

/// Ends the probe with "PROGRAM: WHAT: CUDA's message" unless `e` is success.
inline void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, cudaGetErrorString(e));
  std::exit(1);
}

/// check() naming the call itself: KTUNE_PROBE_CHECK(cudaMalloc(&p, n)).
#define KTUNE_PROBE_CHECK(call) ::ktune::probe::check((call), #call)

/// Milliseconds of `reps` calls of `launch` (which enqueues work on `stream`),
/// each between two events and waited for, after `warmups` untimed calls;
/// sorted ascending. Any error, including one the calls left behind, ends the
/// probe.
template <typename Launch>
std::vector<float> sorted_event_times_ms(Launch&& launch, int warmups, int reps, cudaStream_t stream = nullptr) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  for (int i = 0; i < warmups; ++i) launch();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(start, stream), "event record");
    launch();
    check(cudaEventRecord(stop, stream), "event record");
    check(cudaEventSynchronize(stop), "timed call");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "elapsed time");
    ms.push_back(t);
  }
  check(cudaGetLastError(), "timed calls");
  check(cudaEventDestroy(start), "event");
  check(cudaEventDestroy(stop), "event");
  std::sort(ms.begin(), ms.end());
  return ms;
}

/// The median of `reps` event-timed calls after `warmups` (see sorted_event_times_ms), in ms.
template <typename Launch>
float median_event_ms(Launch&& launch, int warmups, int reps, cudaStream_t stream = nullptr) {
  const std::vector<float> ms = sorted_event_times_ms(launch, warmups, reps, stream);
  return ms[ms.size() / 2];
}

}  // namespace ktune::probe
