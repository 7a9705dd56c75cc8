// GemmHarness: the gemm family's GPU side: seeded random inputs, the cuBLAS
// reference, poisoning, launches with the descriptor's geometry, verification.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/gemm/gpu/gemm_fp8_baseline.hpp"
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
  cudaError_t launch(const Config& config, std::span<const cudaKernel_t> kernels,
                     cudaStream_t stream) override;
  void poison_outputs(cudaStream_t stream) override;
  Verification verify(const Config& config, cudaStream_t stream) override;
  /// C (M rows of ldc elements): the evaluator's bitwise determinism check
  /// compares two runs; atomic split-K configurations are expected to differ.
  std::pair<const void*, std::size_t> output_region() const override;
  /// Set 1 is the edge copy of A: every third row of op(A) zero, every third
  /// scaled by a large power of two (gemm/README.md, "Verification").
  int input_sets() const override { return 2; }
  void select_inputs(int set) override;
  /// Atomics-based split-K adds partial sums in a different order each run.
  bool deterministic_by_design(const Config& config) const override;

  /// cuBLAS on the same buffers, writing C as the kernel does (the baseline
  /// for benchmarks; tf32 uses cuBLAS' TF32 mode, fp32 its full-precision one,
  /// fp8 cuBLASLt's FP8 matmul with the problem's scales, Fp8Baseline).
  cudaError_t launch_cublas(cudaStream_t stream);
  /// The rel-L2 tolerance for a problem (documented in gemm/README.md).
  static double tolerance(const GemmProblem& p);
  /// Every bound verify() applies: the element bound gamma_K |A||B| and
  /// output rounding, and tolerance(p) as the relative L2 bound.
  static verify::Tolerances tolerances(const GemmProblem& p);
  /// The power of two the edge inputs scale rows of A by: large, yet every
  /// input and (fp16 output) every result stays inside the format's range.
  static int edge_scale_exponent(const GemmProblem& p);

 private:
  void release();
  /// ref = reference of op(a) op(B) with the epilogue, mag = its magnitude
  /// |alpha| |op(a)||op(B)| + |beta| |C0| + |bias| (a second cuBLAS call on
  /// absolute values), both M x N on the host.
  void compute_reference(const void* a, std::vector<float>& ref, std::vector<float>& mag);
  const void* active_a() const { return active_ == 0 ? a_ : a_edge_; }
  GemmProblem problem_;
  int active_ = 0;          ///< the input set launches read (select_inputs)
  void* a_edge_ = nullptr;  ///< A's edge-value copy (input set 1)
  void* a_ = nullptr;
  void* b_ = nullptr;
  void* c_ = nullptr;
  void* c0_ = nullptr;  ///< pristine C, restored before verified runs when beta != 0
  void* bias_ = nullptr;
  std::size_t a_elems_ = 0, b_elems_ = 0, c_elems_ = 0;
  /// Per input set: alpha*op(A)op(B) + beta*C0 + bias, activated; M x N tight ...
  std::vector<float> reference_[2];
  std::vector<float> magnitude_[2];  ///< ... and the magnitude its element bound scales with
  void* cublas_ = nullptr;           ///< cublasHandle_t
  GemmLauncher launcher_;            ///< geometry, workspaces, tensor maps, cluster grids
  std::unique_ptr<Fp8Baseline>
      fp8_baseline_;  ///< planned on the first launch_cublas of an fp8 problem
};

/// A new GemmHarness, as families.def registers it.
std::unique_ptr<FamilyHarness> make_gemm_harness();

}  // namespace ktune
