// GemmHarness: the gemm family's GPU side: seeded random inputs, the cuBLAS
// reference, poisoning, launches with the descriptor's geometry, verification.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/gemm/gpu/growing_device_buffer.hpp"
#include "kernels_templated/gemm/gpu/tma_map.hpp"
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
  GrowingDeviceBuffer<float> workspace_;     ///< split-K partial sums
  GrowingDeviceBuffer<unsigned char> pack_;  ///< REPACK: aligned copies of A (at 0) and B (256-byte aligned after A)
  std::size_t a_elems_ = 0, b_elems_ = 0, c_elems_ = 0;
  std::vector<float> reference_;  ///< alpha*op(A)op(B) + beta*C0 + bias, activated; M x N tight
  double reference_rms_ = 0;
  void* cublas_ = nullptr;        ///< cublasHandle_t
  int sm_count_ = 0;              ///< caps persistent wgmma grids
  // Tensor maps of the wgmma path, encoded for one box size and reused while
  // it stays the same (encoding on every timed launch would stall the stream).
  CUtensorMap map_a_{}, map_b_{};
  /// STAGE_C's TMA stores of C: encoded for the C buffer, shape and ldc in maps_c_key_ (empty: none).
  CUtensorMap map_c_{};
  std::tuple<const void*, long long, long long, long long, int> maps_c_key_{};
  int maps_box_m_ = 0, maps_box_n_ = 0;  // the boxes the tensor maps were encoded with (0: none)
  const void* maps_a_ = nullptr;  ///< the buffers the maps address (A/B or their repacked copies)
  const void* maps_b_ = nullptr;
  /// Blocks of a persistent cluster grid that fit at once, per (shared memory, threads, cluster size).
  std::map<std::tuple<int, int, int>, int> resident_blocks_;
};

}  // namespace ktune
