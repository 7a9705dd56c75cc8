// CubinRunner: cubin loading through the runtime's library API, one verified
// run, and event-timed repetitions.
#include "kernels_templated/rowwise/gpu/cubin_runner.hpp"

#include <algorithm>

namespace ktune::rowwise {

LoadedCubin::LoadedCubin(const std::vector<char>& cubin,
                         const std::vector<std::string>& lowered_names) {
  cudaError_t e =
      cudaLibraryLoadData(&library_, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e != cudaSuccess) {
    library_ = nullptr;
    error_ = std::string("cudaLibraryLoadData: ") + cudaGetErrorString(e);
    return;
  }
  for (const std::string& name : lowered_names) {
    cudaKernel_t k = nullptr;
    e = cudaLibraryGetKernel(&k, library_, name.c_str());
    if (e != cudaSuccess) {
      error_ = "cudaLibraryGetKernel(" + name + "): " + cudaGetErrorString(e);
      return;
    }
    kernels_.push_back(k);
  }
}

LoadedCubin::~LoadedCubin() {
  if (library_) cudaLibraryUnload(library_);
}

RunCheck run_and_verify(FamilyHarness& harness, const Config& config,
                        std::span<const cudaKernel_t> kernels, cudaStream_t stream) {
  RunCheck r;
  harness.poison_outputs(stream);
  r.launch = harness.launch(config, kernels, stream);
  if (r.launch == cudaSuccess) r.launch = cudaStreamSynchronize(stream);
  if (r.launch != cudaSuccess) return r;
  r.verification = harness.verify(config, stream);
  return r;
}

double median_launch_seconds(FamilyHarness& harness, const Config& config,
                             std::span<const cudaKernel_t> kernels, cudaStream_t stream, int warmup,
                             int repetitions) {
  for (int i = 0; i < warmup; ++i)
    if (harness.launch(config, kernels, stream) != cudaSuccess) return -1;
  std::vector<cudaEvent_t> events(2 * static_cast<std::size_t>(repetitions));
  for (auto& e : events)
    if (cudaEventCreate(&e) != cudaSuccess) return -1;
  cudaError_t err = cudaSuccess;
  for (int i = 0; i < repetitions && err == cudaSuccess; ++i) {
    err = cudaEventRecord(events[2 * i], stream);
    if (err == cudaSuccess) err = harness.launch(config, kernels, stream);
    if (err == cudaSuccess) err = cudaEventRecord(events[2 * i + 1], stream);
  }
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  std::vector<double> times;
  for (int i = 0; err == cudaSuccess && i < repetitions; ++i) {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]) == cudaSuccess)
      times.push_back(ms * 1e-3);
  }
  for (auto& e : events) cudaEventDestroy(e);
  if (err != cudaSuccess || times.empty()) return -1;
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace ktune::rowwise
