// gemm_tc.cuh: the Ampere-style tensor-core GEMM (mma.sync m16n8k16 for
// bf16/fp16, m16n8k8 for tf32; ldmatrix; cp.async multistage pipeline).
#pragma once

#include "kernels_templated/gemm/gemm_block_work.cuh"
#include "kernels_templated/gemm/gemm_common.cuh"
#include "kernels_templated/gemm/gemm_tile.cuh"

namespace ktune_gemm {

/// Stores two horizontally adjacent results (m, n) and (m, n+1) of a fragment.
template <typename TOut, int EPI, int SPLIT_MODE, bool PRED>
__device__ __forceinline__ void store_fragment_pair(const GemmParams& p, int m, int n, float v0, float v1) {
  if (PRED && m >= p.M) return;
  const bool both = !PRED || n + 1 < p.N;
  if constexpr (SPLIT_MODE == kSplitNone) {
    if (both && (p.ldc & 1) == 0) {
      TOut* c = static_cast<TOut*>(p.C) + static_cast<long long>(m) * p.ldc + n;
      float o0 = 0.f, o1 = 0.f;
      if (p.beta != 0.f) {
        o0 = to_float(c[0]);
        o1 = to_float(c[1]);
      }
      const TOut r0 = from_float<TOut>(epilogue_value<TOut, EPI>(p, v0, o0, n));
      const TOut r1 = from_float<TOut>(epilogue_value<TOut, EPI>(p, v1, o1, n + 1));
      if constexpr (sizeof(TOut) == 4) {
        *reinterpret_cast<float2*>(c) = make_float2(r0, r1);
      } else {
        const unsigned lo = *reinterpret_cast<const unsigned short*>(&r0);
        const unsigned hi = *reinterpret_cast<const unsigned short*>(&r1);
        *reinterpret_cast<unsigned*>(c) = lo | (hi << 16);
      }
      return;
    }
  }
  if (!PRED || n < p.N) store_result<TOut, EPI, SPLIT_MODE>(p, m, n, v0);
  if (both) store_result<TOut, EPI, SPLIT_MODE>(p, m, n + 1, v1);
}

/// A BM x BN tile of C in shared memory, rows padded by 16 bytes: the
/// fragments' writes (8 rows x 4 pairs a warp) fall in distinct banks.
template <typename TOut, int BN>
struct StagedC {
  static constexpr int kChunk = 16 / static_cast<int>(sizeof(TOut));  ///< elements per 16-byte segment
  static constexpr int kStride = BN + kChunk;                          ///< elements between rows
};

/// The STAGE_C epilogue (beta == 0, no split): the warps write their finished
/// values (alpha, bias, activation applied) into the ring, then the block
/// stores the tile row by row, so a warp writes whole rows of C: 16-byte
/// segments where C's rows are 16-byte aligned (edges under PRED element by
/// element), else consecutive elements from consecutive threads.
template <typename TOut, int BM, int BN, int WM, int WN, int THREADS, bool PRED, int EPI>
__device__ __forceinline__ void store_tile_staged(const GemmParams& p, const float (&acc)[WM / 16][WN / 8][4],
                                                  unsigned char* smem, int m0, int n0, int wm0, int wn0, int g,
                                                  int t) {
  using Staged = StagedC<TOut, BN>;
  TOut* tile = reinterpret_cast<TOut*>(smem);
  // Every warp is past its last reads of the ring (the main loops waited for
  // every copy before they ended).
  __syncthreads();
#pragma unroll
  for (int i = 0; i < WM / 16; ++i)
#pragma unroll
    for (int j = 0; j < WN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = wm0 + i * 16 + g + h * 8;
        const int c = wn0 + j * 8 + 2 * t;
        // Columns past N (PRED) are never stored; their bias is not read.
        const bool in_n = !PRED || n0 + c + 1 < p.N;
        const float v0 = !PRED || n0 + c < p.N ? epilogue_value<TOut, EPI>(p, acc[i][j][2 * h], 0.f, n0 + c) : 0.f;
        const float v1 = in_n ? epilogue_value<TOut, EPI>(p, acc[i][j][2 * h + 1], 0.f, n0 + c + 1) : 0.f;
        TOut* dst = tile + r * Staged::kStride + c;
        if constexpr (sizeof(TOut) == 4) {
          *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
        } else {
          dst[0] = from_float<TOut>(v0);
          dst[1] = from_float<TOut>(v1);
        }
      }
  __syncthreads();
  if ((p.ldc * sizeof(TOut)) % 16 != 0 || reinterpret_cast<unsigned long long>(p.C) % 16 != 0) {
    for (int e = threadIdx.x; e < BM * BN; e += THREADS) {
      const int r = e / BN, c = e % BN;
      if (!PRED || (m0 + r < p.M && n0 + c < p.N))
        static_cast<TOut*>(p.C)[static_cast<long long>(m0 + r) * p.ldc + n0 + c] = tile[r * Staged::kStride + c];
    }
    return;
  }
  constexpr int kPerRow = BN / Staged::kChunk;
#pragma unroll 4
  for (int e = threadIdx.x; e < BM * kPerRow; e += THREADS) {
    const int r = e / kPerRow, c = (e % kPerRow) * Staged::kChunk;
    const int m = m0 + r, n = n0 + c;
    const TOut* src = tile + r * Staged::kStride + c;
    TOut* out = static_cast<TOut*>(p.C) + static_cast<long long>(m) * p.ldc + n;
    if (!PRED || (m < p.M && n + Staged::kChunk <= p.N)) {
      *reinterpret_cast<uint4*>(out) = *reinterpret_cast<const uint4*>(src);
    } else if (m < p.M) {
      for (int x = 0; x < Staged::kChunk && n + x < p.N; ++x) out[x] = src[x];
    }
  }
}

/// C = alpha * op(A) * op(B) + beta * C (+ bias, activation) on tensor cores.
///   TIn: __nv_bfloat16, __half, or float (tf32 math); TOut: TIn or float.
///   BM x BN x BK block tile; WM x WN warp tile ((BM/WM)*(BN/WN) warps).
///   STAGES shared-memory stages (1 = no overlap); VEC elements per global copy.
///   A_T: A is stored K x M (op(A) = A^T); B_T: B is stored N x K.
///   SWIZZLE: XOR-swizzled shared memory instead of padded rows.
///   GROUP_M: block rasterization group; SPLIT_MODE: kSplit*; PRED: bounds checks.
///   MIN_BLOCKS: blocks per SM ptxas must leave registers for (occupancy vs registers).
///   STAGE_C: C leaves through shared memory in 16-byte row segments (see store_tile_staged).
template <typename TIn, typename TOut, int BM, int BN, int BK, int WM, int WN, int STAGES, int VEC, bool A_T,
          bool B_T, bool SWIZZLE, int GROUP_M, int SPLIT_MODE, bool PRED, int EPI, int MIN_BLOCKS, bool STAGE_C>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    gemm_tc(const GemmParams p) {
  constexpr bool kTf32 = sizeof(TIn) == 4;
  constexpr int kWarpsN = BN / WN;
  constexpr int kThreads = (BM / WM) * kWarpsN * 32;
  constexpr int kMmaK = kTf32 ? 8 : 16;
  constexpr int kTilesM = WM / 16;  // m16 tiles per warp
  constexpr int kTilesN = WN / 8;   // n8 tiles per warp
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tile must divide the block tile");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tile must be a multiple of 16 x 16");
  static_assert(BK % 16 == 0, "BLOCK_K must be a multiple of 16");
  static_assert(STAGES >= 1 && STAGES <= 6, "1 to 6 stages");

  // A in shared memory: BM x BK (K contiguous) or BK x BM (M contiguous); B likewise.
  using TileA = SmemTile<TIn, A_T ? BK : BM, A_T ? BM : BK, SWIZZLE>;
  using TileB = SmemTile<TIn, B_T ? BN : BK, B_T ? BK : BN, SWIZZLE>;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  TIn* smem_a = reinterpret_cast<TIn*>(smem_raw);
  TIn* smem_b = smem_a + STAGES * TileA::kElems;

  const BlockWork work = block_work<BM, BN, BK, GROUP_M>(p);
  const int m0 = work.m0, n0 = work.n0;
  const int k_begin = work.k_begin, k_end = work.k_end, k_tiles = work.k_tiles;

  // Each thread's copy addresses are worked out once here; a stage load adds constants.
  // A is M x K (K along the tile's columns) or, transposed, K x M; B is K x N or N x K.
  using LoadA = TileLoader<TIn, A_T ? BK : BM, A_T ? BM : BK, SWIZZLE, VEC, kThreads, PRED, A_T>;
  using LoadB = TileLoader<TIn, B_T ? BN : BK, B_T ? BK : BN, SWIZZLE, VEC, kThreads, PRED, !B_T>;
  static_assert(is_same_type<typename LoadA::Tile, TileA>::value && is_same_type<typename LoadB::Tile, TileB>::value,
                "the loaders write the layouts the fragments read");
  LoadA load_a(static_cast<const TIn*>(p.A), p.lda, A_T ? k_begin : m0, A_T ? m0 : k_begin, A_T ? k_end : p.M,
               A_T ? p.M : k_end);
  LoadB load_b(static_cast<const TIn*>(p.B), p.ldb, B_T ? n0 : k_begin, B_T ? k_begin : n0, B_T ? p.N : k_end,
               B_T ? k_end : p.N);
  const unsigned smem_a_addr = smem_addr(smem_a);
  const unsigned smem_b_addr = smem_addr(smem_b);
  constexpr unsigned kStageBytesA = TileA::kElems * sizeof(TIn);
  constexpr unsigned kStageBytesB = TileB::kElems * sizeof(TIn);
  // Loads the next k-tile (in order: the loaders step through K) into `stage`.
  auto load_stage = [&](int stage) {
    load_a.load(smem_a_addr + stage * kStageBytesA);
    load_b.load(smem_b_addr + stage * kStageBytesB);
  };

  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int wm0 = (warp / kWarpsN) * WM;  // warp's first row inside the block tile
  const int wn0 = (warp % kWarpsN) * WN;

  float acc[kTilesM][kTilesN][4];
#pragma unroll
  for (int i = 0; i < kTilesM; ++i)
#pragma unroll
    for (int j = 0; j < kTilesN; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

  // The warp's operand fragments for one mma k-step.
  struct Fragments {
    unsigned a[kTilesM][4];
    unsigned b[kTilesN][2];
  };
  // Per-lane ldmatrix offsets inside a stage, computed once: in the loop a
  // load's address is the stage's address plus a constant (and, for a
  // swizzled K-contiguous tile, an XOR with a constant per k-step).
  const int q = lane / 8;  // which 8x8 matrix of an x4 load this lane addresses
  const OperandFragments<TileA, A_T, kTilesM> frag_a(A_T ? (q / 2) * 8 + lane % 8 : wm0 + lane % 16,
                                                     A_T ? wm0 + (q % 2) * 8 : lane / 16);
  const OperandFragments<TileB, !B_T, kTilesN / 2> frag_b(B_T ? wn0 + (q / 2) * 8 + lane % 8 : (q % 2) * 8 + lane % 8,
                                                          B_T ? q % 2 : wn0 + (q / 2) * 8);

  // Reads the fragments of k-step `kk` (an element offset inside BLOCK_K) of a stage.
  auto load_fragments = [&](Fragments& f, int stage, int kk) {
    if constexpr (!kTf32) {
      const unsigned sa = smem_a_addr + stage * kStageBytesA;
      const unsigned sb = smem_b_addr + stage * kStageBytesB;
      const int s = kk / 16;
#pragma unroll
      for (int i = 0; i < kTilesM; ++i) {
        const unsigned addr = sa + frag_a.offset(i, s) * sizeof(TIn);
        if constexpr (!A_T) ldmatrix_x4(addr, f.a[i][0], f.a[i][1], f.a[i][2], f.a[i][3]);
        else ldmatrix_x4_trans(addr, f.a[i][0], f.a[i][1], f.a[i][2], f.a[i][3]);
      }
#pragma unroll
      for (int j = 0; j < kTilesN; j += 2) {
        const unsigned addr = sb + frag_b.offset(j / 2, s) * sizeof(TIn);
        if constexpr (B_T) ldmatrix_x4(addr, f.b[j][0], f.b[j][1], f.b[j + 1][0], f.b[j + 1][1]);
        else ldmatrix_x4_trans(addr, f.b[j][0], f.b[j][1], f.b[j + 1][0], f.b[j + 1][1]);
      }
    } else {
      // tf32: fragments are 32-bit, ldmatrix.trans cannot transpose them; read words.
      const TIn* sa = smem_a + stage * TileA::kElems;
      const TIn* sb = smem_b + stage * TileB::kElems;
      const int g = lane / 4;
      const int t = lane % 4;
      auto elem_a = [&](int m, int k) {
        return reinterpret_cast<const float*>(sa)[A_T ? TileA::offset(k, m) : TileA::offset(m, k)];
      };
      auto elem_b = [&](int k, int n) {
        return reinterpret_cast<const float*>(sb)[B_T ? TileB::offset(n, k) : TileB::offset(k, n)];
      };
#pragma unroll
      for (int i = 0; i < kTilesM; ++i) {
        const int m = wm0 + i * 16 + g;
        f.a[i][0] = to_tf32(elem_a(m, kk + t));
        f.a[i][1] = to_tf32(elem_a(m + 8, kk + t));
        f.a[i][2] = to_tf32(elem_a(m, kk + t + 4));
        f.a[i][3] = to_tf32(elem_a(m + 8, kk + t + 4));
      }
#pragma unroll
      for (int j = 0; j < kTilesN; ++j) {
        const int n = wn0 + j * 8 + g;
        f.b[j][0] = to_tf32(elem_b(kk + t, n));
        f.b[j][1] = to_tf32(elem_b(kk + t + 4, n));
      }
    }
  };
  // Serpentine order: odd rows of mma tiles walk N backwards, so that each
  // mma shares an operand with the one before it, the turns included (the
  // operand reuse cache saves register-file reads).
  auto multiply = [&](const Fragments& f) {
#pragma unroll
    for (int i = 0; i < kTilesM; ++i)
#pragma unroll
      for (int jj = 0; jj < kTilesN; ++jj) {
        const int j = (i % 2) ? kTilesN - 1 - jj : jj;
        if constexpr (kTf32) mma_1688_tf32(acc[i][j], f.a[i], f.b[j]);
        else mma_16816<TIn>(acc[i][j], f.a[i], f.b[j]);
      }
  };

  constexpr int kSteps = BK / kMmaK;  // mma k-steps per stage
  if constexpr (STAGES == 1) {
    Fragments f;
    for (int kt = 0; kt < k_tiles; ++kt) {
      load_stage(0);
      cp_async_commit();
      cp_async_wait<0>();
      __syncthreads();
#pragma unroll
      for (int step = 0; step < kSteps; ++step) {
        load_fragments(f, 0, step * kMmaK);
        multiply(f);
      }
      __syncthreads();
    }
  } else {
    // Multistage: STAGES - 1 tiles in flight. Fragments are double-buffered in
    // registers: a k-step's mma run while the next k-step's fragments load,
    // across stage boundaries too, so the barrier and the copy issue of a
    // stage hide behind the tensor cores instead of stalling them. The first
    // k-step issues its ldmatrix before the next tile's copies: both go
    // through the memory instruction queue, and ldmatrix queued behind a burst
    // of copies delays the fragments the next k-step waits for (2% at 4096^3
    // and 8192^3 on the H200; spreading the copies over the k-steps lost 3%,
    // both measured on the H200).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles) load_stage(s);
      cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    Fragments frag[2];
    if (k_tiles > 0) load_fragments(frag[0], 0, 0);
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int stage = kt % STAGES;
#pragma unroll
      for (int step = 0; step < kSteps; ++step) {
        const bool last = step == kSteps - 1;
        if (!last) load_fragments(frag[(step + 1) % 2], stage, (step + 1) * kMmaK);
        if (step == 0) {
          // Refill the slot read during iteration kt - 1: every warp loaded its
          // last fragments from it before that iteration's barrier.
          const int next = kt + STAGES - 1;
          if (next < k_tiles) load_stage(next % STAGES);
          cp_async_commit();
        }
        if (last) {
          // Tile kt + 1 landed (all but the STAGES - 2 newest groups are done)
          // and is visible to every warp before its first fragments are read.
          cp_async_wait<STAGES - 2>();
          __syncthreads();
          load_fragments(frag[(step + 1) % 2], (kt + 1) % STAGES, 0);
        }
        multiply(frag[step % 2]);
      }
      // An odd number of k-steps would leave the next stage's first fragments
      // in frag[1]; the loop over tiles is not unrolled, so move them.
      if constexpr (kSteps % 2 == 1) frag[0] = frag[1];
    }
    cp_async_wait<0>();
  }

  const int g = lane / 4;
  const int t = lane % 4;
  if constexpr (STAGE_C) {
    // The fragments' stores each cover 8 rows x 16 bytes of C, half of every
    // 32-byte sector they touch, and the tensor cores idle while they drain
    // (a block owns its SM): staging C through the ring turns them into
    // whole-sector row segments (5-7% faster at 4096^3 on the
    // H200). C's old values are not
    // staged: with beta != 0 the direct stores below serve.
    static_assert(SPLIT_MODE == kSplitNone, "a staged C tile is a finished one (the space allows no K split)");
    static_assert(static_cast<long long>(BM) * StagedC<TOut, BN>::kStride * sizeof(TOut) <=
                      static_cast<long long>(STAGES) * (kStageBytesA + kStageBytesB),
                  "the staged C tile fits in the ring (the space checks it)");
    if (p.beta == 0.f) {
      store_tile_staged<TOut, BM, BN, WM, WN, kThreads, PRED, EPI>(p, acc, smem_raw, m0, n0, wm0, wn0, g, t);
      return;
    }
  }
  // Epilogue straight from the accumulator fragments: (g, 2t..2t+1) and (g+8, ...).
#pragma unroll
  for (int i = 0; i < kTilesM; ++i) {
#pragma unroll
    for (int j = 0; j < kTilesN; ++j) {
      const int m = m0 + wm0 + i * 16 + g;
      const int n = n0 + wn0 + j * 8 + 2 * t;
      store_fragment_pair<TOut, EPI, SPLIT_MODE, PRED>(p, m, n, acc[i][j][0], acc[i][j][1]);
      store_fragment_pair<TOut, EPI, SPLIT_MODE, PRED>(p, m + 8, n, acc[i][j][2], acc[i][j][3]);
    }
  }
}

}  // namespace ktune_gemm
