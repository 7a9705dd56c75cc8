// Fp8Baseline: cuBLASLt's FP8 GEMM on the harness's buffers with the problem's per-tensor scales
// (the benchmark baseline of dtype=e4m3|e5m2, layout nt).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include "kernels_templated/gemm/gemm_family.hpp"

namespace ktune {

class Fp8Baseline {
 public:
  /// Plans the matmul for a normalized fp8 problem (descriptors, scales on the device, the
  /// heuristic's first algorithm); throws std::runtime_error naming the cuBLASLt call that refused.
  explicit Fp8Baseline(const GemmProblem& p);
  ~Fp8Baseline();
  Fp8Baseline(const Fp8Baseline&) = delete;
  Fp8Baseline& operator=(const Fp8Baseline&) = delete;

  /// C = scale_d (alpha scale_a scale_b A B^T + beta C) on `stream`. A refusal returns
  /// cudaErrorUnknown; its cuBLAS status is printed to stderr the first time.
  cudaError_t run(const void* a, const void* b, void* c, cudaStream_t stream);

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
  bool refusal_reported_ = false;
  bool fallback_reported_ = false;
};

}  // namespace ktune
