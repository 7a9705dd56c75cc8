// gemm_splitk.cuh: the second kernels of split-K: the deterministic reduction
// of fp32 partials (workspace mode) and the prescale of C that precedes the
// atomic mode (whose summation order, hence rounding, varies run to run).
#pragma once

#include "kernels_templated/gemm/gemm_common.cuh"

namespace ktune_gemm {

/// C = epilogue(sum over SPLITS of workspace[s][m][n]); grid-stride over M*N.
template <typename TOut, int EPI, int SPLITS>
__global__ void __launch_bounds__(256) splitk_reduce(const GemmParams p) {
  const long long mn = static_cast<long long>(p.M) * p.N;
  for (long long idx = blockIdx.x * 256LL + threadIdx.x; idx < mn; idx += static_cast<long long>(gridDim.x) * 256) {
    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < SPLITS; ++s) sum += p.workspace[s * mn + idx];
    const int m = static_cast<int>(idx / p.N);
    const int n = static_cast<int>(idx % p.N);
    TOut* c = static_cast<TOut*>(p.C) + static_cast<long long>(m) * p.ldc + n;
    const float old = p.beta != 0.f ? to_float(*c) : 0.f;
    *c = from_float<TOut>(epilogue_value<TOut, EPI>(p, sum, old, n));
  }
}

/// fp32 C = beta * C + bias (C is not read when beta == 0), before the splits
/// atomically add alpha * partial. Only for epilogues without an activation.
template <int EPI>
__global__ void __launch_bounds__(256) splitk_prescale(const GemmParams p) {
  const long long mn = static_cast<long long>(p.M) * p.N;
  for (long long idx = blockIdx.x * 256LL + threadIdx.x; idx < mn; idx += static_cast<long long>(gridDim.x) * 256) {
    const int m = static_cast<int>(idx / p.N);
    const int n = static_cast<int>(idx % p.N);
    float* c = static_cast<float*>(p.C) + static_cast<long long>(m) * p.ldc + n;
    float v = p.beta != 0.f ? p.beta * *c : 0.f;
    if constexpr (EPI == kEpiBias) v += static_cast<const float*>(p.bias)[n];
    *c = v;
  }
}

}  // namespace ktune_gemm
