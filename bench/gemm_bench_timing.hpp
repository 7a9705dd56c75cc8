// gemm_bench_timing.hpp: how bench_gemm_bench times: medians as `ktune tune`
// times (launches in turns, the L2 flushed), sustained back-to-back runs with
// NVML samples, and waits with a deadline that take a hung launch for a hang.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "measure/nvml.hpp"
#include "measure/timing.hpp"

namespace ktune::gemm_bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "gemm_bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

/// A timed launch still running after this long is taken for a hang (a
/// configuration that deadlocks, e.g. a ring waiting on itself). No kernel the
/// bench times legitimately comes near it: the slowest take milliseconds.
constexpr int kHangSeconds = 10;

/// cudaEventSynchronize with a deadline: a hung kernel cannot be stopped and
/// its CUDA context cannot be recovered, so the bench says which wait hung and
/// exits (3) instead of blocking until an outer timeout kills it.
inline void wait_for(cudaEvent_t event, const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kHangSeconds);
  for (;;) {
    const cudaError_t e = cudaEventQuery(event);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) check(e, what);
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr,
                   "gemm_bench: %s: the launch is still running after %d s; taking it for a hang "
                   "and exiting\n",
                   what, kHangSeconds);
      std::fflush(stdout);
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

using Launch = LaunchFn;

/// The middle value (the upper one of an even count); T{} for no values.
template <typename T>
T median_of(std::vector<T> v) {
  if (v.empty()) return T{};
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Waits for `s` with wait_for's deadline: a hang ends the bench (status 3).
inline cudaError_t wait_stream(cudaStream_t s, const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kHangSeconds);
  for (;;) {
    const cudaError_t e = cudaStreamQuery(s);
    if (e != cudaErrorNotReady) return e;
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr,
                   "gemm_bench: %s: still running after %d s; taking it for a hang and exiting\n",
                   what, kHangSeconds);
      std::fflush(stdout);
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

/// Median milliseconds of each launch, timed as `ktune tune` times
/// (measure/timing.hpp: the L2 flushed before every run, warm-up, rounds until
/// the spread target or the cap). Within a round the launches take turns, so
/// a drift of clocks or temperature affects them alike and the ratio between
/// them stays fair. `noisy`, when given, says whether any missed the target.
inline std::vector<double> interleaved_medians_ms(const std::vector<Launch>& launches,
                                                  cudaStream_t s, const L2Flush* flush,
                                                  bool* noisy = nullptr) {
  const TimedLaunches t = time_launches(launches, s, TimingOptions{}, flush,
                                        [s](double) { return wait_stream(s, "timed launches"); });
  check(t.error, t.failed_phase);
  if (noisy) *noisy = t.noisy;
  std::vector<double> medians;
  for (const TimeStats& st : t.stats) medians.push_back(st.median_s * 1e3);
  return medians;
}

/// Median milliseconds of one launch (see interleaved_medians_ms).
inline double time_median_ms(const Launch& launch, cudaStream_t s, const L2Flush* flush,
                             bool* noisy = nullptr) {
  return interleaved_medians_ms({launch}, s, flush, noisy).front();
}

/// One launch run back to back, alone, for a while: its steady state under the
/// GPU's power management, which the interleaved medians (a few milliseconds
/// per kernel) cannot show. NVML is sampled while it runs.
struct SustainedRun {
  double median_ms = 0;  ///< per launch, events around each one, no L2 flush between
  int launches =
      0;  ///< in the measured part (the first quarter of the time is settling, not counted)
  unsigned clock_median_mhz = 0, clock_min_mhz = 0, clock_max_mhz = 0;  ///< NVML's SM clock samples
  double power_median_w = 0;                                            ///< board power samples
  unsigned long long reasons = 0;  ///< every NVML clock-event reason seen (bit mask)
  int samples = 0;
};

inline SustainedRun run_sustained(const Launch& launch, cudaStream_t s, int duration_ms,
                                  const std::string& bus) {
  constexpr int kInFlight = 8;  // event pairs queued ahead, so the GPU never waits for the host
  constexpr auto kSampleEvery = std::chrono::milliseconds(10);
  std::vector<cudaEvent_t> starts(kInFlight), stops(kInFlight);
  std::vector<bool> counted(kInFlight);  // issued after the settling time
  for (int i = 0; i < kInFlight; ++i) {
    check(cudaEventCreate(&starts[i]), "event");
    check(cudaEventCreate(&stops[i]), "event");
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto settle = t0 + std::chrono::milliseconds(duration_ms / 4);
  const auto end = t0 + std::chrono::milliseconds(duration_ms);
  std::vector<double> ms;
  std::vector<unsigned> clocks;
  std::vector<double> watts;
  SustainedRun r;
  auto next_sample = t0;
  long long issued = 0, done = 0;
  auto retire = [&] {
    const int slot = static_cast<int>(done % kInFlight);
    wait_for(stops[slot], "sustained launch");
    float t = 0;
    check(cudaEventElapsedTime(&t, starts[slot], stops[slot]), "elapsed");
    if (counted[slot]) ms.push_back(t);
    ++done;
  };
  while (std::chrono::steady_clock::now() < end) {
    if (issued - done == kInFlight) retire();
    const int slot = static_cast<int>(issued % kInFlight);
    counted[slot] = std::chrono::steady_clock::now() >= settle;
    check(cudaEventRecord(starts[slot], s), "event record");
    check(launch(s), "sustained launch");
    check(cudaEventRecord(stops[slot], s), "event record");
    ++issued;
    const auto now = std::chrono::steady_clock::now();
    if (now >= settle && now >= next_sample) {
      next_sample = now + kSampleEvery;
      const Nvml& nvml = Nvml::instance();
      if (const auto c = nvml.sm_clock_mhz(bus)) clocks.push_back(*c);
      if (const auto p = nvml.power_mw(bus)) watts.push_back(*p / 1000.0);
      if (const auto why = nvml.clock_event_reasons(bus)) r.reasons |= *why;
    }
  }
  while (done < issued) retire();
  for (int i = 0; i < kInFlight; ++i) {
    cudaEventDestroy(starts[i]);
    cudaEventDestroy(stops[i]);
  }
  r.median_ms = median_of(ms);
  r.launches = static_cast<int>(ms.size());
  r.clock_median_mhz = median_of(clocks);
  if (!clocks.empty()) {
    r.clock_min_mhz = *std::min_element(clocks.begin(), clocks.end());
    r.clock_max_mhz = *std::max_element(clocks.begin(), clocks.end());
  }
  r.power_median_w = median_of(watts);
  r.samples = static_cast<int>(clocks.size());
  return r;
}

}  // namespace ktune::gemm_bench
