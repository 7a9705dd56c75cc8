// GemmHarness: the gemm family's GPU side: seeded random inputs, the cuBLAS
// reference, poisoning, launches with the descriptor's geometry, verification.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/gemm/gpu/gemm_launch.hpp"
#include "kernels_templated/harness.hpp"

namespace ktune {

class GemmHarness final : public FamilyHarness {
 public:
  GemmHarness();
  ~GemmHarness() override;
  GemmHarness(const GemmHarness&) = delete;
  GemmHarness& operator=(const GemmHarness&) = delete;

  void prepare(const Problem& problem, std::uint64_t seed) override;
  cudaError_t launch(const Config& config, std::span<const cudaKernel_t> kernels, cudaStream_t stream) override;
  void poison_outputs(cudaStream_t stream) override;
  Verification verify(const Config& config, cudaStream_t stream) override;
  /// C (M rows of ldc elements): the evaluator's bitwise determinism check
  /// compares two runs; atomic split-K configurations are expected to differ.
  std::pair<const void*, std::size_t> output_region() const override;

  /// cuBLAS on the same buffers, writing C as the kernel does (the baseline
  /// for benchmarks; tf32 uses cuBLAS' TF32 mode, fp32 its full-precision one).
  cudaError_t launch_cublas(cudaStream_t stream);
  /// The rel-L2 tolerance for a problem (documented in gemm/README.md).
  static double tolerance(const GemmProblem& p);

 private:
  void release();
  GemmProblem problem_;
  void* a_ = nullptr;
  void* b_ = nullptr;
  void* c_ = nullptr;
  void* c0_ = nullptr;      ///< pristine C, restored before verified runs when beta != 0
  void* bias_ = nullptr;
  std::size_t a_elems_ = 0, b_elems_ = 0, c_elems_ = 0;
  std::vector<float> reference_;  ///< alpha*op(A)op(B) + beta*C0 + bias, activated; M x N tight
  double reference_rms_ = 0;
  void* cublas_ = nullptr;        ///< cublasHandle_t
  GemmLauncher launcher_;        ///< geometry, workspaces, tensor maps, cluster grids
};

}  // namespace ktune
