// Device helpers of the gemm harness (built by nvcc): seeded fills, poison
// patterns and the reference epilogue. Plain host-callable functions.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace ktune::gemm_gpu {

enum class Elem { fp32 = 0, bf16 = 1, fp16 = 2, e4m3 = 3, e5m2 = 4 };

/// Bytes per element.
inline int elem_bytes(Elem e) {
  return e == Elem::fp32 ? 4 : e == Elem::e4m3 || e == Elem::e5m2 ? 1 : 2;
}

/// Uniform values in [-1, 1] from a counter-based hash of (seed, index), rounded to elem.
cudaError_t fill_uniform(void* data, std::size_t count, Elem elem, std::uint64_t seed,
                         cudaStream_t stream);
/// Every element set to the same bit pattern (elem's width).
cudaError_t fill_pattern(void* data, std::size_t count, Elem elem, std::uint32_t bits,
                         cudaStream_t stream);
/// ref[m][n] = act(alpha * ref[m][n] + beta * c0[m][n] + bias[n]); c0 has c's type and ldc.
cudaError_t reference_epilogue(float* ref, const void* c0, const void* bias, int m, int n,
                               long long ldc, Elem out, float alpha, float beta, int epilogue,
                               cudaStream_t stream);
/// dst[i] = src[i] converted (round to nearest): exact from fp8 to bf16, which
/// holds every fp8 value, so cuBLAS's bf16 GEMM is the fp8 operands' reference.
cudaError_t convert_copy(void* dst, Elem dst_elem, const void* src, Elem src_elem,
                         std::size_t count, cudaStream_t stream);
/// dst[i] = |src[i]| (exact in every format): the operands of the |A||B| product.
cudaError_t abs_copy(void* dst, const void* src, std::size_t count, Elem elem, cudaStream_t stream);
/// mag[m][n] = |alpha| mag[m][n] + |beta| |c0[m][n]| + |bias[n]| (bias only with an epilogue):
/// the magnitude the verification bound scales with.
cudaError_t magnitude_epilogue(float* mag, const void* c0, const void* bias, int m, int n,
                               long long ldc, Elem out, float alpha, float beta, int epilogue,
                               cudaStream_t stream);
/// The edge-value copy of a stored operand: row r of op(A) (r = i / ld, or
/// i % ld when `transposed`) is zero when r % 3 == 0, scaled by 2^large_exp
/// when r % 3 == 1, unchanged otherwise. Powers of two keep it exact.
cudaError_t edge_rows(void* dst, const void* src, std::size_t count, long long ld, bool transposed,
                      Elem elem, int large_exp, cudaStream_t stream);

}  // namespace ktune::gemm_gpu
