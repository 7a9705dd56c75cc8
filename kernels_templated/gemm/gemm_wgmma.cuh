// gemm_wgmma.cuh: the Hopper tensor-core path (sm_90a). The TMA engine loads
// A and B tiles into a multistage shared-memory ring guarded by mbarriers; one
// producer warpgroup issues the copies, one or two consumer warpgroups issue
// wgmma on them and finish C from their registers. The grid is either one
// block per output tile or persistent (blocks loop over tiles, so the producer
// prefetches the next tile while the consumers finish the current one).
//
// With PINGPONG, the two consumer warpgroups each own whole tiles and take
// turns: one runs its main loop while the other finishes its previous tile's
// epilogue, so the tensor cores do not idle while C is written. The ring still
// fills in item order; a consumer starts waiting on the ring only after the
// other one has waited on all of the previous item's stages (named barriers),
// which keeps every parity wait at most one phase ahead of its barrier.
//
// With a cluster of two blocks, the blocks compute adjacent tiles and share
// one operand tile per stage: along M (CLUSTER_M = 2, same columns of C) they
// share the B tile, along N (CLUSTER_N = 2, same rows) the A tile. Each block
// loads its own tile of the other operand and half of the shared one, which
// TMA multicasts into both blocks' shared memory, so L2 serves each shared
// tile once per pair. A stage is refilled only after the consumers of both
// blocks released it (they arrive on both blocks' barriers).
//
// Scope: rows 16-byte aligned (the descriptor repacks other operands first).
// 16-bit A and B (bf16, fp16) in any layout: each operand is read from shared
// memory as it is stored, K-major (A stored M x K, B stored N x K) or MN-major
// (A stored K x M, B stored K x N; wgmma's transpose immediates), so no layout
// needs a copy. tf32 (fp32 words) and fp8 operands are K-major only (layout
// nt, or a transposed copy first); their K per stage and per instruction come
// from gemm_wgmma_types.hpp. gemm_wgmma serves layout nt and
// gemm_wgmma_layout every layout. TMA zero-fills reads past M, N and K, so
// edges need no predication on the load side; the epilogue checks bounds per
// element.
//
// NVRTC emits every namespace-scope constant (and static data member) into
// every cubin: a new or removed one changes the cubins of all stored results
// (their symbol tables), so constants that only some kernels use live inside
// functions, and type traits are functions.
#pragma once

#include <cuda/ptx>

#include "kernels_templated/gemm/gemm_common.cuh"
#include "kernels_templated/gemm/gemm_wgmma_ops.cuh"

namespace ktune_gemm {

/// The opaque 128-byte tensor map (CUtensorMap) that the host encodes with
/// cuTensorMapEncodeTiled; passed by value as a __grid_constant__ parameter.
struct alignas(64) TmaMap {
  unsigned long long opaque[16];
};

/// K per stage of 16-bit elements: one 128-byte row of the 128-byte swizzle.
constexpr int kWgmmaBlockK = 64;
/// The ring's K per stage for element type T: one 128-byte row; and the K of
/// one instruction, 32 bytes (both as gemm_wgmma_types.hpp gives them).
template <typename T>
constexpr int wgmma_block_k() {
  constexpr int k = kWgmmaBlockK * 2 / static_cast<int>(sizeof(T));
  static_assert(k == wgmma_traits(WgmmaOperand<T>::type()).row_elems, "one 128-byte row per stage");
  return k;
}
template <typename T>
constexpr int wgmma_instr_k() {
  return wgmma_traits(WgmmaOperand<T>::type()).instr_k;
}
/// Consumers take the register file the producer gives up (setmaxnreg).
constexpr int kProducerRegs = 40;

/// wgmma shared-memory descriptor of a tile stored as TMA writes it with the
/// 128-byte swizzle: rows of 128 bytes, 8-row atoms of 1024 bytes whose
/// 16-byte chunks are XOR-ed with the row (the hardware applies the swizzle to
/// the absolute address, hence 1024-byte aligned stages and column blocks).
/// - K-major: a row holds 64 K-elements of one M (or N) index; the next 8
///   rows (the next atom along M or N) are 1024 bytes on. Moving along K
///   inside the atom is a plain address offset.
/// - MN-major: a row holds 64 M (or N) elements of one K index; a column block
///   is BK such rows, and the tile's column blocks follow one another. Along
///   K the next 8 rows are 1024 bytes on, and moving along K in steps of 8
///   rows is a plain address offset; along M or N the next 64 elements are
///   one column block on: the leading byte offset. The derivation:
///   docs/gemm-hopper.md.
///
/// The descriptor is kept as two 32-bit words. The high word is the same for
/// every tile: stride byte offset (the next 8 rows, 1024 bytes in both
/// layouts) and the swizzle mode. The low word holds the start address in
/// 16-byte units (bits 0-13) and the leading byte offset (bits 16-29; 1,
/// unused, when K-major). Offsets inside the ring stay below 2^18, so they are
/// added to the low word without carrying into the offset field: a consumer
/// builds each wgmma's descriptor with one 32-bit add, where recomputing it
/// from an address took a mask, a shift and an OR more (gemm v13 run A:
/// 0.5-2% faster).
///
/// In a cluster launch a shared address evidently carries bits above 2^18,
/// which the plain shift ORs into the leading byte offset: harmless where that
/// is unused (K-major, and an M-major A, read one column block at a time),
/// wrong for an N-major B wider than one column block. nn and tn with
/// two-block clusters failed 141 of 618 configurations on an H100 that way, and
/// pass every one with the MN-major start masked to its 14 bits
/// (GemmGpu.WgmmaClusterPairsInEveryLayout). The K-major start is left as it
/// was, so the cubins of the stored nt results keep their code.
constexpr unsigned kWgmmaDescHigh = (1024u >> 4) | (1u << 30);
template <bool MN_MAJOR = false>
__device__ __forceinline__ unsigned wgmma_desc_low(const void* tile) {
  constexpr unsigned kColumnBlockBytes = kWgmmaBlockK * 128;  // MN-major: BK rows of 128 bytes
  const unsigned start = MN_MAJOR ? (smem_addr(tile) >> 4) & 0x3FFFu : smem_addr(tile) >> 4;
  return start | ((MN_MAJOR ? kColumnBlockBytes >> 4 : 1u) << 16);
}
__device__ __forceinline__ unsigned long long wgmma_desc(unsigned low) {
  return (static_cast<unsigned long long>(kWgmmaDescHigh) << 32) | low;
}
/// What ELEMENTS elements of T further on adds to a descriptor's low word.
template <typename T>
__host__ __device__ constexpr unsigned wgmma_desc_offset(int elements) {
  return static_cast<unsigned>(elements * sizeof(T) / 16);
}
/// Elements from a tile's start to its K index k (a multiple of 8): along the
/// 128-byte row when K-major, k rows of 128 bytes down when MN-major.
template <typename T, bool MN_MAJOR>
__host__ __device__ constexpr int k_offset(int k) {
  return MN_MAJOR ? k * (128 / static_cast<int>(sizeof(T))) : k;
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
}
/// Pins accumulator registers at this point of the program: the compiler must
/// not move their reads above a wgmma.wait_group it cannot see them depend on.
template <int COUNT>
__device__ __forceinline__ void fence_registers(float* d) {
#pragma unroll
  for (int i = 0; i < COUNT; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(reinterpret_cast<cuda::std::uint64_t*>(bar), parity)) {
  }
}

template <typename TOut>
__device__ __forceinline__ void store_two(TOut* c, float v0, float v1);
template <>
__device__ __forceinline__ void store_two<float>(float* c, float v0, float v1) {
  *reinterpret_cast<float2*>(c) = make_float2(v0, v1);
}
template <>
__device__ __forceinline__ void store_two<__nv_bfloat16>(__nv_bfloat16* c, float v0, float v1) {
  *reinterpret_cast<__nv_bfloat162*>(c) = __floats2bfloat162_rn(v0, v1);
}
template <>
__device__ __forceinline__ void store_two<__half>(__half* c, float v0, float v1) {
  *reinterpret_cast<__half2*>(c) = __floats2half2_rn(v0, v1);
}

/// Finishes C[m][n] and C[m][n+1] (n even); one paired store when both are in
/// bounds and the pair is aligned (ldc even, cudaMalloc'd base), else element-wise.
template <typename TOut, int EPI, int SPLIT_MODE>
__device__ __forceinline__ void store_result_pair(const GemmParams& p, int m, int n, float v0, float v1) {
  if (m >= p.M) return;
  if constexpr (SPLIT_MODE == kSplitNone) {
    if (n + 1 < p.N && (p.ldc & 1) == 0) {
      TOut* c = static_cast<TOut*>(p.C) + static_cast<long long>(m) * p.ldc + n;
      const float old0 = p.beta != 0.f ? to_float(c[0]) : 0.f;
      const float old1 = p.beta != 0.f ? to_float(c[1]) : 0.f;
      store_two<TOut>(c, epilogue_value<TOut, EPI>(p, v0, old0, n), epilogue_value<TOut, EPI>(p, v1, old1, n + 1));
      return;
    }
  }
  if (n < p.N) store_result<TOut, EPI, SPLIT_MODE>(p, m, n, v0);
  if (n + 1 < p.N) store_result<TOut, EPI, SPLIT_MODE>(p, m, n + 1, v1);
}

/// STAGE_C epilogue: each consumer warp owns two 16-row x 128-byte staging
/// buffers (2 KB each) after the ring's barriers, 1024-byte aligned (the
/// 128-byte swizzle of the TMA store). The host's smem_bytes() adds them.
constexpr int kStagingRowBytes = 128;
constexpr int kStagingBufferBytes = 16 * kStagingRowBytes;
constexpr int kStagingBytesPerWarp = 2 * kStagingBufferBytes;

/// Byte offset of byte b of staging row r: 16-byte segments XOR-swizzled by
/// the row, so the accumulator layout (8 rows x 4 lanes per store) and the
/// row-segment reads (8 lanes per row) both hit 32 distinct banks. In a
/// 1024-byte aligned buffer this is exactly the TMA's 128-byte swizzle, so a
/// tensor store reads the buffer as it is.
__device__ __forceinline__ int staged_offset(int row, int byte) {
  return row * kStagingRowBytes + ((((byte >> 4) ^ row) & 7) << 4) + (byte & 15);
}

/// Whether C's rows take 16-byte stores: ldc a multiple of 16 bytes and the
/// base 16-byte aligned.
template <typename TOut>
__device__ __forceinline__ bool c_rows_aligned(const GemmParams& p) {
  return p.ldc % (16 / static_cast<int>(sizeof(TOut))) == 0 && reinterpret_cast<unsigned long long>(p.C) % 16 == 0;
}

/// Finishes one warp's 16 rows x BN columns of C (rows row0 + 0..15 of an m64
/// block, columns col0 + 0..BN-1) through its staging buffer: the finished
/// values go to shared memory in the accumulator layout and leave as 16-byte
/// row segments, so each global store fills whole sectors (stores straight
/// from the accumulators write 4- or 8-byte pairs of eight rows at once).
///
/// INTERIOR: the caller checked that the 16 rows and BN columns lie inside C,
/// that its rows are 16-byte aligned (c_rows_aligned) and that beta is 0, so
/// no element is checked, C is not read, and every segment is one store. That
/// is the common case, and it runs about a fifth of the instructions of the
/// general one, which counts at small K (measured on the H200).
/// Otherwise elements past M or N are skipped, and segments of unaligned rows
/// or cut by N go element-wise.
///
/// An interior pass of a full 128 bytes per row leaves as one TMA tensor store
/// (16 rows x 128 bytes through `c_map`), issued by lane 0, which the warp does
/// not wait for: it fills its other buffer next and only waits, before writing
/// a buffer again, until the store issued from it two passes earlier has read
/// it (`flip` counts the warp's TMA passes across calls). Other passes are
/// read back and stored by the warp, after every pending store has read its
/// buffer. The kernel waits for all of them before it exits.
template <typename TOut, int EPI, int BN, bool INTERIOR>
__device__ __forceinline__ void store_rows_staged(const GemmParams& p, const float* acc, int row0, int col0,
                                                  unsigned char* staging, int lane, const TmaMap* c_map,
                                                  unsigned& flip) {
  constexpr int kOut = static_cast<int>(sizeof(TOut));
  constexpr int kPassCols = kStagingRowBytes / kOut;  // columns staged per pass: 64 (16-bit) or 32 (fp32)
  constexpr int kVec = 16 / kOut;                     // elements per 16-byte segment
  const bool rows_aligned = INTERIOR || c_rows_aligned<TOut>(p);
  const int quad = lane % 4;
#pragma unroll
  for (int pass = 0; pass < (BN + kPassCols - 1) / kPassCols; ++pass) {
    const int pass_cols = min(BN - pass * kPassCols, kPassCols);
    const bool by_tma = INTERIOR && pass_cols == kPassCols;
    unsigned char* buffer = staging + (flip & 1) * kStagingBufferBytes;
    if (lane == 0) {
      if (by_tma) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>{});
      else cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
    }
    __syncwarp();
    // A constant trip count: with the pass's own column count as the bound,
    // the loop can be left rolled and the accumulators indexed from memory.
#pragma unroll
    for (int jj = 0; jj < kPassCols / 8; ++jj) {
      const int j = pass * kPassCols / 8 + jj;  // n8 slice of the accumulators
      if (jj >= pass_cols / 8) continue;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = lane / 4 + 8 * half;
        const int local_col = 8 * j + 2 * quad - pass * kPassCols;
        const int n = col0 + 8 * j + 2 * quad;
        float v[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float a = acc[4 * j + 2 * half + e];
          if constexpr (INTERIOR) {
            v[e] = finish_value<TOut, EPI>(p, p.alpha * a, n + e);
          } else {
            // Out-of-range elements are staged but never stored; do not read C or bias there.
            const bool inside = row0 + row < p.M && n + e < p.N;
            const float old = (p.beta != 0.f && inside)
                                  ? to_float(static_cast<const TOut*>(p.C)[static_cast<long long>(row0 + row) * p.ldc + n + e])
                                  : 0.f;
            v[e] = inside ? epilogue_value<TOut, EPI>(p, a, old, n + e) : 0.f;
          }
        }
        store_two<TOut>(reinterpret_cast<TOut*>(buffer + staged_offset(row, local_col * kOut)), v[0], v[1]);
      }
    }
    if (by_tma) {
      // The warp's shared-memory writes, made visible to the TMA unit (async proxy).
      cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
      __syncwarp();
      if (lane == 0) {
        const cuda::std::int32_t coords[2] = {col0 + pass * kPassCols, row0};
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, c_map, coords, buffer);
        cuda::ptx::cp_async_bulk_commit_group();
      }
      ++flip;
      continue;
    }
    __syncwarp();
    const int segments = pass_cols / kVec;  // per row
    // Rolled on purpose: unrolled, the interior case's store addresses of every
    // pass are computed up front, and with 128 accumulators live they spill.
#pragma unroll 1
    for (int i = 0; i < (16 * kPassCols / kVec + 31) / 32; ++i) {
      const int s = lane + 32 * i;
      const int row = s / segments, segment = s % segments;
      const int m = row0 + row, n = col0 + pass * kPassCols + segment * kVec;
      if (s >= 16 * segments || (!INTERIOR && (m >= p.M || n >= p.N))) continue;
      const unsigned char* staged = buffer + staged_offset(row, segment * 16);
      TOut* c = static_cast<TOut*>(p.C) + static_cast<long long>(m) * p.ldc + n;
      if (rows_aligned && (INTERIOR || n + kVec <= p.N)) {
        *reinterpret_cast<uint4*>(c) = *reinterpret_cast<const uint4*>(staged);
      } else {
        for (int e = 0; e < kVec && n + e < p.N; ++e) c[e] = reinterpret_cast<const TOut*>(staged)[e];
      }
    }
    __syncwarp();  // the next pass overwrites the buffer
  }
}

/// One TMA load of a tile (or of this block's half of a shared tile) into
/// the ring, completing on `bar`. SHARERS = 2: the half is multicast to both
/// blocks of the cluster, at the same shared offset and onto the barrier at
/// the same offset in each.
template <int SHARERS>
__device__ __forceinline__ void load_tile(void* dst, const TmaMap* map, const cuda::std::int32_t (&coords)[2],
                                          cuda::std::uint64_t* bar) {
  if constexpr (SHARERS == 1) {
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_shared, cuda::ptx::space_global, dst, map, coords, bar);
  } else {
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, coords, bar,
                                    static_cast<cuda::std::uint16_t>((1u << SHARERS) - 1));
  }
}

/// Loads one operand's stage, tile rows mn0 .. mn0 + W - 1 (W = BLOCK_M of A,
/// BLOCK_N of B) by K indices k .. k + BK - 1, or with SHARERS = 2 the share
/// of it that the block of rank `rank` multicasts.
/// - K-major: one box of W rows by 64 K-elements; a share is W/2 rows (whole
///   8-row atoms: the space keeps W/2 a multiple of 8).
/// - MN-major: one box per column block of 64 M or N elements by BK K-rows
///   (W a multiple of 64: the space and the BLOCK_M values keep it so); a
///   share is BK/2 K-rows of every column block (four whole atoms, so any W
///   splits).
template <typename T, bool MN_MAJOR, int W, int SHARERS>
__device__ __forceinline__ void load_operand(T* stage, const TmaMap* map, int mn0, int k, int rank,
                                             cuda::std::uint64_t* bar) {
  constexpr int BK = wgmma_block_k<T>();
  if constexpr (!MN_MAJOR) {
    constexpr int PART = W / SHARERS;
    static_assert(PART % 8 == 0, "a multicast share is whole 8-row swizzle atoms");
    const cuda::std::int32_t coords[2] = {k, mn0 + rank * PART};
    load_tile<SHARERS>(stage + rank * PART * BK, map, coords, bar);
  } else {
    constexpr int ROW = 128 / static_cast<int>(sizeof(T));  // elements of a 128-byte row
    constexpr int PART = BK / SHARERS;
    static_assert(W % ROW == 0, "an MN-major tile is whole column blocks");
    static_assert(PART % 8 == 0, "a multicast share is whole 8-row swizzle atoms");
#pragma unroll
    for (int block = 0; block < W / ROW; ++block) {
      const cuda::std::int32_t coords[2] = {mn0 + block * ROW, k + rank * PART};
      load_tile<SHARERS>(stage + block * ROW * BK + rank * PART * ROW, map, coords, bar);
    }
  }
}

/// Releases a ring stage once the calling warpgroup's wgmma on it completed:
/// one arrival per consumer warpgroup on the empty barrier of every block
/// that wrote into the stage (the whole cluster when an operand is multicast). A wgmma
/// is one operation of the whole warpgroup, so any of its warps may signal;
/// warp r of the group signals block r, spreading the remote arrivals.
///
/// The remote arrival has CTA-scope release semantics on purpose: the only
/// accesses it orders are the wgmma reads of the stage, which wgmma.wait_group
/// has already completed, so a cluster-scope release (which waits for this
/// thread's earlier memory operations to become visible to the whole cluster)
/// buys nothing and stalls the warpgroup's next wgmma on every stage.
template <int CLUSTER>
__device__ __forceinline__ void release_stage(unsigned long long* empty_bar, int warp_in_group, int lane) {
  if (lane != 0 || warp_in_group >= CLUSTER) return;
  if constexpr (CLUSTER == 1) {
    cuda::ptx::mbarrier_arrive(reinterpret_cast<cuda::std::uint64_t*>(empty_bar));
  } else {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(smem_addr(empty_bar)), "r"(warp_in_group));
    asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0];\n" ::"r"(remote) : "memory");
  }
}

/// Named barriers (0 is __syncthreads) that hand the ring from one pingpong
/// consumer to the other: the consumer that finished waiting on an item's
/// stages arrives, the other one syncs before its next item.
__device__ constexpr unsigned kHandoffBarrier[2] = {1, 2};
__device__ __forceinline__ void named_barrier_arrive(unsigned id, unsigned threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_sync(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/// Threads of a block: the consumer warpgroups and the producer's.
__host__ __device__ constexpr int wgmma_threads(int bm, int wm, bool pingpong) {
  return 128 * ((pingpong ? 2 : bm / wm) + 1);
}

/// C = alpha * op(A) * op(B) (+ beta C, bias, activation), all row-major; A
/// stored M x K, or K x M when A_M_MAJOR; B stored N x K, or K x N when
/// B_N_MAJOR. BM x BN tile per block. Cooperative (PINGPONG false): WM rows
/// per consumer warpgroup (64 or 128: WM/64 wgmma m64 blocks), BM/WM
/// consumers. PINGPONG: WM = BM, two consumers on alternate tiles. Plus one
/// producer warpgroup. Grid: (blocks, 1, splits), launched in clusters of
/// CLUSTER_M x CLUSTER_N blocks along x; cluster c walks the cluster tiles
/// (CLUSTER_M x CLUSTER_N tiles) c, c + clusters, ... STAGE_C: C leaves
/// through shared memory as 16-byte row segments (store_rows_staged), else
/// straight from the accumulators in pairs. The kernels below run it.
template <typename T, typename TOut, int BM, int BN, int WM, int STAGES, int CLUSTER_M,
          int CLUSTER_N, int GROUP_M, int SPLIT_MODE, int EPI, bool PINGPONG, bool STAGE_C,
          bool A_M_MAJOR, bool B_N_MAJOR>
__device__ __forceinline__ void gemm_wgmma_block(const TmaMap& tma_a, const TmaMap& tma_b,
                                                 const TmaMap& tma_c, const GemmParams& p) {
  constexpr int CONSUMERS = PINGPONG ? 2 : BM / WM;
  // Consumers reading one stage: both halves of the tile, or the one owner.
  constexpr int READERS = PINGPONG ? 1 : CONSUMERS;
  constexpr int BK = wgmma_block_k<T>();
  constexpr int KSTEP = wgmma_instr_k<T>();
  constexpr int M_BLOCKS = WM / 64;
  constexpr int ACC = BN / 2;  // fp32 accumulators per thread per m64 block
  constexpr int A_STAGE = BM * BK;
  constexpr int B_STAGE = BN * BK;
  constexpr unsigned STAGE_BYTES = (A_STAGE + B_STAGE) * sizeof(T);
  static_assert(BM % WM == 0 && (CONSUMERS == 1 || CONSUMERS == 2), "one or two consumer warpgroups");
  static_assert(!PINGPONG || WM == BM, "a pingpong consumer owns the whole tile");
  static_assert(WM == 64 || WM == 128, "a consumer owns one or two m64 blocks");
  static_assert(BN % 8 == 0 && BN >= 64 && BN <= 256, "wgmma N");
  static_assert(STAGES >= 2, "the ring needs two stages to overlap");
  constexpr int CLUSTER = CLUSTER_M * CLUSTER_N;
  static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of one or two blocks");
  static_assert(!STAGE_C || SPLIT_MODE == kSplitNone,
                "split-K partials are fp32 sums, not finished C");

  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (smem_addr(smem_raw) & 1023)) & 1023);
  T* ring_a = reinterpret_cast<T*>(smem);
  T* ring_b = ring_a + STAGES * A_STAGE;
  auto* full = reinterpret_cast<unsigned long long*>(ring_b + STAGES * B_STAGE);
  auto* empty = full + STAGES;
  // STAGE_C: two staging buffers per consumer warp, 1024-byte aligned.
  unsigned char* staging = smem + ((reinterpret_cast<unsigned char*>(empty + STAGES) - smem + 1023) & ~1023);

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      cuda::ptx::mbarrier_init(reinterpret_cast<cuda::std::uint64_t*>(&full[s]), 1);
      // One arrival per consumer warpgroup of every block reading the stage.
      cuda::ptx::mbarrier_init(reinterpret_cast<cuda::std::uint64_t*>(&empty[s]), CLUSTER * READERS);
    }
    // Make the initialized barriers visible to the TMA unit (async proxy).
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  // Every block's barriers must exist before any block of the cluster signals them.
  if constexpr (CLUSTER > 1) {
    cuda::ptx::barrier_cluster_arrive();
    cuda::ptx::barrier_cluster_wait();
  } else {
    __syncthreads();
  }
  const int rank = CLUSTER > 1 ? static_cast<int>(cuda::ptx::get_sreg_cluster_ctarank()) : 0;
  // This block's tile inside its cluster tile: the rank counts along M or along N.
  const int rank_m = CLUSTER_M > 1 ? rank : 0;
  const int rank_n = CLUSTER_N > 1 ? rank : 0;

  // Work items are cluster tiles: CLUSTER_M x CLUSTER_N adjacent tiles. A
  // block whose tile lies past M or N (an odd tile count) still loads its
  // half of the shared operand; TMA zero-fills the rest and the epilogue
  // writes nothing.
  const int tiles_m = (p.M + BM - 1) / BM;
  const int tiles_n = (p.N + BN - 1) / BN;
  const int clusters_m = (tiles_m + CLUSTER_M - 1) / CLUSTER_M;
  const int clusters_n = (tiles_n + CLUSTER_N - 1) / CLUSTER_N;
  const int items = clusters_m * clusters_n;
  const int first_item = blockIdx.x / CLUSTER;
  const int item_stride = gridDim.x / CLUSTER;
  const int k_begin = blockIdx.z * p.k_per_split;
  const int k_tiles = (min(p.K - k_begin, p.k_per_split) + BK - 1) / BK;  // >= 1 (space constraint)
  // Broadcast from lane 0: the same in every lane, which ptxas cannot see in threadIdx.x / 128.
  const int warpgroup = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);

  if (warpgroup == 0) {
    // Producer: one thread issues every copy; the rest of the warpgroup idles.
    setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x == 0) {
      int stage = 0;
      unsigned phase = 0;
      for (int item = first_item; item < items; item += item_stride) {
        int cluster_m, cluster_n;
        rasterize_id<GROUP_M>(item, clusters_m, clusters_n, cluster_m, cluster_n);
        const int tile_m = cluster_m * CLUSTER_M + rank_m;
        const int tile_n = cluster_n * CLUSTER_N + rank_n;
        for (int kt = 0; kt < k_tiles; ++kt) {
          // A fresh barrier counts as having completed the phase before phase 0,
          // so the first pass over the ring does not wait.
          mbar_wait(&empty[stage], phase ^ 1);
          auto* bar = reinterpret_cast<cuda::std::uint64_t*>(&full[stage]);
          cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                               bar, STAGE_BYTES);
          const int k = k_begin + kt * BK;
          // Of a shared tile, this block loads the share of its rank.
          load_operand<T, A_M_MAJOR, BM, CLUSTER_N>(ring_a + stage * A_STAGE, &tma_a, tile_m * BM,
                                                    k, rank_n, bar);
          load_operand<T, B_N_MAJOR, BN, CLUSTER_M>(ring_b + stage * B_STAGE, &tma_b, tile_n * BN,
                                                    k, rank_m, bar);
          if (++stage == STAGES) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
    }
  } else {
    setmaxnreg_inc<CONSUMERS == 1 ? 240 : 232>();
    const int consumer = warpgroup - 1;
    const int lane = threadIdx.x % 32;
    const int warp = (threadIdx.x / 32) % 4;
    float acc[M_BLOCKS][ACC];
#pragma unroll
    for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
      for (int i = 0; i < ACC; ++i) acc[mb][i] = 0.f;
    // Pingpong consumer c takes every other item, starting with the c-th.
    const int own_stride = PINGPONG ? 2 * item_stride : item_stride;
    const int rows_before = PINGPONG ? 0 : consumer * WM;  // this consumer's first row inside the tile
    // Descriptor low words of stage 0's A rows of this consumer and of its B
    // tile. Row r of A (r a multiple of 64) starts r * BK elements in, K-major
    // (r rows of BK) or MN-major (r / 64 column blocks of 64 * BK) alike.
    const unsigned a_desc0 = wgmma_desc_low<A_M_MAJOR>(ring_a + rows_before * BK);
    const unsigned b_desc0 = wgmma_desc_low<B_N_MAJOR>(ring_b);
    unsigned flip = 0;  // this warp's TMA stores of C so far (STAGE_C)
    for (int item = first_item + (PINGPONG ? consumer * item_stride : 0); item < items; item += own_stride) {
      int cluster_m, cluster_n;
      rasterize_id<GROUP_M>(item, clusters_m, clusters_n, cluster_m, cluster_n);
      const int tile_m = cluster_m * CLUSTER_M + rank_m;
      const int tile_n = cluster_n * CLUSTER_N + rank_n;
      // The ring position of this item's first stage: the producer fills
      // k_tiles stages per item, in item order.
      const int position = (item - first_item) / item_stride * k_tiles;
      int stage = position % STAGES;
      unsigned phase = (position / STAGES) & 1;
      if constexpr (PINGPONG) {
        if (item != first_item) named_barrier_sync(kHandoffBarrier[consumer ^ 1], 256);
      }
      int previous = -1;
      for (int kt = 0; kt < k_tiles; ++kt) {
        mbar_wait(&full[stage], phase);
        wgmma_fence();
        const unsigned a_desc = a_desc0 + stage * wgmma_desc_offset<T>(A_STAGE);
        const unsigned b_desc = b_desc0 + stage * wgmma_desc_offset<T>(B_STAGE);
#pragma unroll
        for (int ks = 0; ks < BK / KSTEP; ++ks) {
#pragma unroll
          for (int mb = 0; mb < M_BLOCKS; ++mb) {
            // The first k-step of a tile overwrites instead of accumulating.
            Wgmma<BN, T>::template run<A_M_MAJOR, B_N_MAJOR>(
                acc[mb],
                wgmma_desc(a_desc +
                           wgmma_desc_offset<T>(mb * 64 * BK + k_offset<T, A_M_MAJOR>(ks * KSTEP))),
                wgmma_desc(b_desc + wgmma_desc_offset<T>(k_offset<T, B_N_MAJOR>(ks * KSTEP))),
                (kt > 0 || ks > 0) ? 1 : 0);
          }
        }
        wgmma_commit();
        // Keep this stage's group in flight; the one before it is now complete,
        // so its stage can be refilled.
        wgmma_wait<1>();
        if (previous >= 0) release_stage<CLUSTER>(&empty[previous], warp, lane);
        previous = stage;
        if (++stage == STAGES) {
          stage = 0;
          phase ^= 1;
        }
      }
      // Every stage of this item has landed: the other consumer may start
      // waiting on the next item's (if it has one).
      if constexpr (PINGPONG) {
        if (item + item_stride < items) named_barrier_arrive(kHandoffBarrier[consumer], 256);
      }
      wgmma_wait<0>();
      release_stage<CLUSTER>(&empty[previous], warp, lane);
#pragma unroll
      for (int mb = 0; mb < M_BLOCKS; ++mb) fence_registers<ACC>(acc[mb]);

      // Accumulator layout of m64nN: warp w holds rows 16w..16w+15; lane l holds
      // rows l/4 and l/4 + 8, columns 8j + 2(l%4) and +1 of every n8 slice j.
#pragma unroll
      for (int mb = 0; mb < M_BLOCKS; ++mb) {
        const int warp_row0 = tile_m * BM + rows_before + mb * 64 + warp * 16;
        if constexpr (STAGE_C) {
          unsigned char* buffer = staging + (consumer * 4 + warp) * kStagingBytesPerWarp;
          const bool interior =
              p.beta == 0.f && c_rows_aligned<TOut>(p) && warp_row0 + 16 <= p.M && (tile_n + 1) * BN <= p.N;
          if (interior)
            store_rows_staged<TOut, EPI, BN, true>(p, acc[mb], warp_row0, tile_n * BN, buffer, lane, &tma_c, flip);
          else
            store_rows_staged<TOut, EPI, BN, false>(p, acc[mb], warp_row0, tile_n * BN, buffer, lane, &tma_c, flip);
        } else {
          const int row = warp_row0 + lane / 4;
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
            const int col = tile_n * BN + j * 8 + (lane % 4) * 2;
            store_result_pair<TOut, EPI, SPLIT_MODE>(p, row, col, acc[mb][4 * j], acc[mb][4 * j + 1]);
            store_result_pair<TOut, EPI, SPLIT_MODE>(p, row + 8, col, acc[mb][4 * j + 2], acc[mb][4 * j + 3]);
          }
        }
      }
    }
    // The TMA stores must have read the staging buffers before the block's
    // shared memory goes, and written C before the kernel counts as done.
    if constexpr (STAGE_C) {
      if (lane == 0) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
    }
  }
  // A block must not exit while its partner may still multicast into its
  // shared memory or arrive on its barriers.
  if constexpr (CLUSTER > 1) {
    cuda::ptx::barrier_cluster_arrive();
    cuda::ptx::barrier_cluster_wait();
  }
}

/// Layout nt: A and B K-major. Its own kernel so that its name, and with it
/// the cubins of the results stored for it, stay as they were before the
/// other layouts came.
template <typename T, typename TOut, int BM, int BN, int WM, int STAGES, int CLUSTER_M,
          int CLUSTER_N, int GROUP_M, int SPLIT_MODE, int EPI, bool PINGPONG, bool STAGE_C>
__global__ void __launch_bounds__(wgmma_threads(BM, WM, PINGPONG), 1)
    gemm_wgmma(const __grid_constant__ TmaMap tma_a, const __grid_constant__ TmaMap tma_b,
               const __grid_constant__ TmaMap tma_c, const GemmParams p) {
  gemm_wgmma_block<T, TOut, BM, BN, WM, STAGES, CLUSTER_M, CLUSTER_N, GROUP_M, SPLIT_MODE, EPI,
                   PINGPONG, STAGE_C, false, false>(tma_a, tma_b, tma_c, p);
}

/// Any layout: A_M_MAJOR for A stored K x M (layouts tn, tt), B_N_MAJOR for
/// B stored K x N (layouts nn, tn).
template <typename T, typename TOut, int BM, int BN, int WM, int STAGES, int CLUSTER_M,
          int CLUSTER_N, int GROUP_M, int SPLIT_MODE, int EPI, bool PINGPONG, bool STAGE_C,
          bool A_M_MAJOR, bool B_N_MAJOR>
__global__ void __launch_bounds__(wgmma_threads(BM, WM, PINGPONG), 1)
    gemm_wgmma_layout(const __grid_constant__ TmaMap tma_a, const __grid_constant__ TmaMap tma_b,
                      const __grid_constant__ TmaMap tma_c, const GemmParams p) {
  gemm_wgmma_block<T, TOut, BM, BN, WM, STAGES, CLUSTER_M, CLUSTER_N, GROUP_M, SPLIT_MODE, EPI,
                   PINGPONG, STAGE_C, A_M_MAJOR, B_N_MAJOR>(tma_a, tma_b, tma_c, p);
}

}  // namespace ktune_gemm
