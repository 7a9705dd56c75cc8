// Device helpers of the gemm harness (built by nvcc): seeded fills, poison
// patterns and the reference epilogue. Plain host-callable functions.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace ktune::gemm_gpu {

enum class Elem { fp32 = 0, bf16 = 1, fp16 = 2 };

/// Uniform values in [-1, 1] from a counter-based hash of (seed, index).
cudaError_t fill_uniform(void* data, std::size_t count, Elem elem, std::uint64_t seed, cudaStream_t stream);
/// Every element set to the same bit pattern (elem's width).
cudaError_t fill_pattern(void* data, std::size_t count, Elem elem, std::uint32_t bits, cudaStream_t stream);
/// ref[m][n] = act(alpha * ref[m][n] + beta * c0[m][n] + bias[n]); c0 has c's type and ldc.
cudaError_t reference_epilogue(float* ref, const void* c0, const void* bias, int m, int n, long long ldc, Elem out,
                               float alpha, float beta, int epilogue, cudaStream_t stream);

}  // namespace ktune::gemm_gpu
