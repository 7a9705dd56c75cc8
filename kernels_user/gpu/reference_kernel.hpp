// The reference kernel of a user description, compiled once per worker with
// NVRTC for the live device and loaded with the CUDA runtime.
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace ktune::user {

/// Compiles `source` (a file's text) and looks up `kernel` (a plain,
/// non-template name) for compute capability `cc` (x10); `options` are more
/// NVRTC options (-I, -D). Throws std::runtime_error with the compiler log.
class ReferenceKernel {
 public:
  ReferenceKernel(const std::string& source, const std::string& kernel, int cc,
                  const std::vector<std::string>& options);
  ~ReferenceKernel();
  ReferenceKernel(const ReferenceKernel&) = delete;
  ReferenceKernel& operator=(const ReferenceKernel&) = delete;
  cudaKernel_t kernel() const { return kernel_; }

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
};

}  // namespace ktune::user
