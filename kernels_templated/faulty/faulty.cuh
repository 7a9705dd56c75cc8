// test_faulty's kernel: y = a*x + b over n floats, with deliberate faults
// selected by MODE (the engine's fault-handling test family). NVRTC-safe.
#pragma once

namespace ktune_faulty {

enum Mode : int { normal = 0, oob_write = 1, hang = 2, wrong = 3, drop_ktile = 4, wrong_row = 5, nan_one = 6 };

/// Outputs per row (faulty_family.hpp: kFaultyRowLength).
constexpr long long kRowLength = 1024;

/// THREADS threads per block, ITEMS elements per thread (strided by THREADS so
/// that loads stay coalesced). SMEM_STAGE stages x through dynamic shared
/// memory of THREADS*ITEMS floats (exercises the > 48 KiB opt-in path).
template <int THREADS, int ITEMS, int MODE, bool SMEM_STAGE>
__global__ void __launch_bounds__(THREADS)
    affine(float a, const float* __restrict__ x, float b, float* __restrict__ y, long long n) {
  extern __shared__ float staged[];
  const long long base = static_cast<long long>(blockIdx.x) * THREADS * ITEMS + threadIdx.x;
  float v[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const long long idx = base + static_cast<long long>(i) * THREADS;
    v[i] = idx < n ? x[idx] : 0.f;
    if (SMEM_STAGE) staged[threadIdx.x + i * THREADS] = v[i];
  }
  if (SMEM_STAGE) {
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = staged[(threadIdx.x + i * THREADS + THREADS) % (THREADS * ITEMS)];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) staged[(threadIdx.x + i * THREADS + THREADS) % (THREADS * ITEMS)] = v[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = staged[threadIdx.x + i * THREADS];
  }
  if (MODE == hang && blockIdx.x == 0 && threadIdx.x == 0) {
    // Never returns; the asm keeps the compiler from deleting the loop.
    for (;;) asm volatile("nanosleep.u32 1000;");
  }
  if (MODE == oob_write && blockIdx.x == 0 && threadIdx.x == 0) {
    // 2^38 floats (1 TiB) past the output: far outside any allocation, so the
    // store faults with an illegal address.
    volatile float* far = y + (1LL << 38);
    *far = 1.0f;
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const long long idx = base + static_cast<long long>(i) * THREADS;
    if (idx < n) {
      float r = fmaf(a, v[i], b);
      if (MODE == wrong && idx % 7 == 3) r += 1.0f;  // a silent miscomputation
      if (MODE == drop_ktile) {
        // a*x summed over eight k-tiles of a/8 each, as a tiled reduction
        // would; output tile (block) 1 skips k-tile 3.
        r = b;
        for (int t = 0; t < 8; ++t)
          if (!(blockIdx.x == 1 && t == 3)) r = fmaf(0.125f * a, v[i], r);
      }
      if (MODE == wrong_row && idx / kRowLength == 5 && idx + kRowLength < n) r = fmaf(a, x[idx + kRowLength], b);
      if (MODE == nan_one && idx == n / 2) r = __int_as_float(0x7fc00001);  // a computed NaN, not the poison
      y[idx] = r;
    }
  }
}

}  // namespace ktune_faulty
