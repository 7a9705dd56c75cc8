// CubinRunner: loads a compiled cubin's kernels and runs one configuration
// through a FamilyHarness (poison, launch, verify). Used by the row-wise
// GPU tests and bench; the tuning engine uses its own GpuEvaluator.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "kernels_templated/harness.hpp"

namespace ktune::rowwise {

/// The kernels of one loaded cubin (unloaded on destruction).
class LoadedCubin {
 public:
  /// Loads `cubin` and looks up each lowered name; on failure ok() is false
  /// and error() says which step failed.
  LoadedCubin(const std::vector<char>& cubin, const std::vector<std::string>& lowered_names);
  ~LoadedCubin();
  LoadedCubin(const LoadedCubin&) = delete;
  LoadedCubin& operator=(const LoadedCubin&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::span<const cudaKernel_t> kernels() const { return kernels_; }

 private:
  cudaLibrary_t library_ = nullptr;
  std::vector<cudaKernel_t> kernels_;
  std::string error_;
};

struct RunCheck {
  cudaError_t launch = cudaSuccess;  ///< first launch or execution error
  Verification verification;         ///< of the failing input set, or the last one
  int input_set = -1;                ///< the input set that failed (-1: none)
};

/// For each input set of the harness (random, then edge): poisons the
/// outputs, launches once, waits, verifies; stops at the first failure.
RunCheck run_and_verify(FamilyHarness& harness, const Config& config,
                        std::span<const cudaKernel_t> kernels, cudaStream_t stream);

}  // namespace ktune::rowwise
