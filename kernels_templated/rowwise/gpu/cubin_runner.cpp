// CubinRunner: cubin loading through the runtime's library API and verified
// runs over every input set of a harness.
#include "kernels_templated/rowwise/gpu/cubin_runner.hpp"

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
  // Every input set (random, then edge), stopping at the first failure; the
  // random inputs are selected again afterwards.
  for (int set = 0; set < harness.input_sets(); ++set) {
    harness.select_inputs(set);
    harness.poison_outputs(stream);
    r.launch = harness.launch(config, kernels, stream);
    if (r.launch == cudaSuccess) r.launch = cudaStreamSynchronize(stream);
    if (r.launch == cudaSuccess) r.verification = harness.verify(config, stream);
    if (r.launch != cudaSuccess || !r.verification.passed) {
      r.input_set = set;
      break;
    }
  }
  harness.select_inputs(0);
  return r;
}

}  // namespace ktune::rowwise
