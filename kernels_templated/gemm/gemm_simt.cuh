// gemm_simt.cuh: fp32 GEMM on CUDA cores: register tiling (outer products of
// float4 fragments), vectorized global loads staged through registers, and a
// double-buffered shared memory (the next tile loads while this one computes).
#pragma once

#include "kernels_templated/gemm/gemm_block_work.cuh"
#include "kernels_templated/gemm/gemm_common.cuh"

namespace ktune_gemm {

/// Loads this thread's share of the ROWS x COLS global tile at (row0, col0)
/// into registers, VEC floats per load (zero outside the limits when PRED).
template <int ROWS, int COLS, int VEC, int THREADS, bool PRED, int ITERS>
__device__ __forceinline__ void simt_load(float (&r)[ITERS][VEC], const float* base, long long ld, int row0,
                                          int col0, int row_lim, int col_lim) {
  constexpr int kPerRow = COLS / VEC;
  constexpr int kTotal = ROWS * kPerRow;
#pragma unroll
  for (int i = 0; i < ITERS; ++i) {
    const int v = static_cast<int>(threadIdx.x) + i * THREADS;
    const int row = v / kPerRow;
    const int col = (v % kPerRow) * VEC;
    const int grow = row0 + row;
    const int gcol = col0 + col;
    const float* src = base + static_cast<long long>(grow) * ld + gcol;
    const bool in_tile = kTotal % THREADS == 0 || v < kTotal;
    const bool whole = !PRED || (grow < row_lim && gcol + VEC <= col_lim);
    if (in_tile && whole) {
      if constexpr (VEC == 4) {
        const float4 x = *reinterpret_cast<const float4*>(src);
        r[i][0] = x.x; r[i][1] = x.y; r[i][2] = x.z; r[i][3] = x.w;
      } else if constexpr (VEC == 2) {
        const float2 x = *reinterpret_cast<const float2*>(src);
        r[i][0] = x.x; r[i][1] = x.y;
      } else {
        r[i][0] = *src;
      }
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        r[i][e] = (in_tile && grow < row_lim && gcol + e < col_lim) ? src[e] : 0.f;
    }
  }
}

/// Stores registers loaded by simt_load into a shared tile whose rows are K:
/// TRANSPOSE when the global tile's rows were M (or N) rather than K.
template <int ROWS, int COLS, int VEC, int THREADS, bool TRANSPOSE, int STRIDE, int ITERS>
__device__ __forceinline__ void simt_store(float* s, const float (&r)[ITERS][VEC]) {
  constexpr int kPerRow = COLS / VEC;
  constexpr int kTotal = ROWS * kPerRow;
#pragma unroll
  for (int i = 0; i < ITERS; ++i) {
    const int v = static_cast<int>(threadIdx.x) + i * THREADS;
    if (kTotal % THREADS == 0 || v < kTotal) {
      const int row = v / kPerRow;
      const int col = (v % kPerRow) * VEC;
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        if constexpr (TRANSPOSE) s[(col + e) * STRIDE + row] = r[i][e];
        else s[row * STRIDE + col + e] = r[i][e];
      }
    }
  }
}

/// fp32 C = alpha * op(A) * op(B) + beta * C (+ bias, activation) on CUDA cores.
///   BM x BN x BK block tile; WM x WN warp tile; a warp's lanes form a 4 x 8
///   grid (8 x 4 when WM > WN), each lane owns (WM/rows) x (WN/cols) results
///   in float4 strips. PAD adds 4 floats to each shared row (no bank
///   conflicts on the transposing stores). Other knobs as in gemm_tc.
template <int BM, int BN, int BK, int WM, int WN, int VEC, bool PAD, bool A_T, bool B_T, int GROUP_M,
          int SPLIT_MODE, bool PRED, int EPI, int MIN_BLOCKS>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    gemm_simt(const GemmParams p) {
  constexpr int kWarpsN = BN / WN;
  constexpr int kThreads = (BM / WM) * kWarpsN * 32;
  constexpr int kLaneRows = WM > WN ? 8 : 4;
  constexpr int kLaneCols = 32 / kLaneRows;
  constexpr int kTM = WM / kLaneRows;
  constexpr int kTN = WN / kLaneCols;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tile must divide the block tile");
  static_assert((kTM == 4 || kTM == 8) && (kTN == 4 || kTN == 8), "thread tile must be 4 or 8 per side");
  constexpr int kStrideA = BM + (PAD ? 4 : 0);
  constexpr int kStrideB = BN + (PAD ? 4 : 0);
  // Global tiles as stored: A is BM x BK (K contiguous) unless A_T; B is BK x BN unless B_T.
  constexpr int kRowsA = A_T ? BK : BM, kColsA = A_T ? BM : BK;
  constexpr int kRowsB = B_T ? BN : BK, kColsB = B_T ? BK : BN;
  constexpr int kItersA = (kRowsA * kColsA / VEC + kThreads - 1) / kThreads;
  constexpr int kItersB = (kRowsB * kColsB / VEC + kThreads - 1) / kThreads;

  extern __shared__ __align__(128) unsigned char smem_raw[];
  float* smem_a = reinterpret_cast<float*>(smem_raw);  // [2][BK][kStrideA]
  float* smem_b = smem_a + 2 * BK * kStrideA;           // [2][BK][kStrideB]

  const BlockWork work = block_work<BM, BN, BK, GROUP_M>(p);
  const int m0 = work.m0, n0 = work.n0;
  const int k_begin = work.k_begin, k_end = work.k_end, k_tiles = work.k_tiles;
  const float* a_ptr = static_cast<const float*>(p.A);
  const float* b_ptr = static_cast<const float*>(p.B);

  float ra[kItersA][VEC];
  float rb[kItersB][VEC];
  auto load = [&](int kt) {
    const int k0 = k_begin + kt * BK;
    if constexpr (A_T) simt_load<kRowsA, kColsA, VEC, kThreads, PRED>(ra, a_ptr, p.lda, k0, m0, k_end, p.M);
    else simt_load<kRowsA, kColsA, VEC, kThreads, PRED>(ra, a_ptr, p.lda, m0, k0, p.M, k_end);
    if constexpr (B_T) simt_load<kRowsB, kColsB, VEC, kThreads, PRED>(rb, b_ptr, p.ldb, n0, k0, p.N, k_end);
    else simt_load<kRowsB, kColsB, VEC, kThreads, PRED>(rb, b_ptr, p.ldb, k0, n0, k_end, p.N);
  };
  auto store = [&](int buf) {
    simt_store<kRowsA, kColsA, VEC, kThreads, !A_T, kStrideA>(smem_a + buf * BK * kStrideA, ra);
    simt_store<kRowsB, kColsB, VEC, kThreads, B_T, kStrideB>(smem_b + buf * BK * kStrideB, rb);
  };

  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int lane_r = lane / kLaneCols;
  const int lane_c = lane % kLaneCols;
  const int wm0 = (warp / kWarpsN) * WM;
  const int wn0 = (warp % kWarpsN) * WN;

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.f;

  if (k_tiles > 0) {
    load(0);
    store(0);
    __syncthreads();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int cur = kt & 1;
    if (kt + 1 < k_tiles) load(kt + 1);  // in flight during the products below
    const float* sa = smem_a + cur * BK * kStrideA;
    const float* sb = smem_b + cur * BK * kStrideB;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float fa[kTM];
      float fb[kTN];
#pragma unroll
      for (int i = 0; i < kTM / 4; ++i) {
        const float4 x = *reinterpret_cast<const float4*>(sa + k * kStrideA + wm0 + i * kLaneRows * 4 + lane_r * 4);
        fa[4 * i] = x.x; fa[4 * i + 1] = x.y; fa[4 * i + 2] = x.z; fa[4 * i + 3] = x.w;
      }
#pragma unroll
      for (int j = 0; j < kTN / 4; ++j) {
        const float4 x = *reinterpret_cast<const float4*>(sb + k * kStrideB + wn0 + j * kLaneCols * 4 + lane_c * 4);
        fb[4 * j] = x.x; fb[4 * j + 1] = x.y; fb[4 * j + 2] = x.z; fb[4 * j + 3] = x.w;
      }
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
    }
    if (kt + 1 < k_tiles) store(cur ^ 1);  // that buffer was last read before the previous barrier
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int m = m0 + wm0 + (i / 4) * kLaneRows * 4 + lane_r * 4 + i % 4;
    if (PRED && m >= p.M) continue;
#pragma unroll
    for (int j = 0; j < kTN; j += 4) {
      const int n = n0 + wn0 + (j / 4) * kLaneCols * 4 + lane_c * 4;
      if constexpr (SPLIT_MODE == kSplitNone) {
        if ((!PRED || n + 4 <= p.N) && (p.ldc & 3) == 0) {
          float* c = static_cast<float*>(p.C) + static_cast<long long>(m) * p.ldc + n;
          float4 old = make_float4(0.f, 0.f, 0.f, 0.f);
          if (p.beta != 0.f) old = *reinterpret_cast<const float4*>(c);
          float4 out;
          out.x = epilogue_value<float, EPI>(p, acc[i][j], old.x, n);
          out.y = epilogue_value<float, EPI>(p, acc[i][j + 1], old.y, n + 1);
          out.z = epilogue_value<float, EPI>(p, acc[i][j + 2], old.z, n + 2);
          out.w = epilogue_value<float, EPI>(p, acc[i][j + 3], old.w, n + 3);
          *reinterpret_cast<float4*>(c) = out;
          continue;
        }
      }
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (!PRED || n + e < p.N) store_result<float, EPI, SPLIT_MODE>(p, m, n + e, acc[i][j + e]);
    }
  }
}

}  // namespace ktune_gemm
