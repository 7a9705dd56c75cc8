// gemm_stream_k.cuh: the work schedule of a stream-K tail for the persistent
// wgmma grid, host and device. Measured motivation and the kernel design are
// in bench/results/gemm-hopper-2026-12-02-v10.md §3-4.
//
// Why: the persistent grid runs whole items (cluster tiles) round after round.
// When items is not a multiple of workers (persistent clusters), the last round
// runs on only some SMs. At 8192x4096x4096 with 128x256 tiles, 100 of 132 work
// in the 8th round: 3% of the kernel's SM time is idle, and cuBLAS idles there
// too. Here the leftover items' k-iterations are instead spread evenly over
// the workers.
//
// The schedule's invariants are tested on the host
// (tests/kernels/gemm_stream_k_test.cpp); gemm_wgmma.cuh runs it when
// STREAM_K is set, with the partial and flag helpers at the end of this file.
//
// The schedule, for I items of K k-tiles and W workers:
// - The last S = I mod W items are split. Their S*K k-iterations, numbered
//   item-major, are divided evenly among the first `sk_workers` workers: all W,
//   or fewer, so that each share holds at least `min_share` k-tiles, since
//   tiny shares cost more in partials than they save.
// - Worker w first takes its contiguous share of those iterations (stream-K).
//   It then takes the whole items w, w + W, ... below I - S (data-parallel).
// - A share covers parts of at most a few items. A piece that starts inside an
//   item (k_begin > 0) is a contributor: it writes its fp32 partial and
//   releases a flag. Only the first piece of a share can start that way, so a
//   worker has at most one contributor piece and one workspace slot. The piece
//   that starts an item (k_begin == 0) without finishing it is the finisher: it
//   adds the partials of the following workers that hold the rest of the item
//   (last_contributor), in worker order, which keeps the result deterministic,
//   and writes C.
// - Contributors publish at the start of their share and finishers combine at
//   its end, so a finisher seldom waits.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define KTUNE_SK_HD __host__ __device__ __forceinline__
#else
#define KTUNE_SK_HD inline
#endif

namespace ktune_gemm {

/// What a piece of an item's k-range does with its accumulators.
enum StreamKRole {
  kStreamKWhole = 0,        ///< the whole item: the usual epilogue
  kStreamKFinisher = 1,     ///< k-tiles [0, k_end) of a split item: add the contributors' partials, then the epilogue
  kStreamKContributor = 2,  ///< k-tiles [k_begin, k_end), k_begin > 0: write the partial, release the flag
};

/// k-tiles [k_begin, k_end) of work item `item`.
struct StreamKPiece {
  int item;
  int k_begin;
  int k_end;
  int role;  ///< StreamKRole
};

struct StreamKSchedule {
  int items = 0;                  ///< work items (cluster tiles)
  int k_tiles = 0;                ///< k-tiles per item
  int workers = 0;                ///< persistent workers (clusters of the grid)
  int sk_items = 0;               ///< the last items, split across workers: items mod workers
  int sk_workers = 0;             ///< workers sharing them (0 when none are split)
  long long sk_iterations = 0;    ///< sk_items * k_tiles

  /// The schedule for `items` items of `k_tiles` k-tiles on `workers`
  /// workers (all >= 1); shares of at least `min_share` k-tiles where the
  /// tail has that many.
  KTUNE_SK_HD static StreamKSchedule make(int items, int k_tiles, int workers, int min_share) {
    StreamKSchedule s;
    s.items = items;
    s.k_tiles = k_tiles;
    s.workers = workers;
    s.sk_items = items % workers;
    s.sk_iterations = static_cast<long long>(s.sk_items) * k_tiles;
    if (s.sk_items > 0) {
      const long long by_share = min_share > 0 ? s.sk_iterations / min_share : s.sk_iterations;
      s.sk_workers = static_cast<int>(by_share < 1 ? 1 : (by_share < workers ? by_share : workers));
    }
    return s;
  }

  /// No split: every worker takes whole items w, w + W, ... (the grid
  /// without STREAM_K, persistent or one block per item).
  KTUNE_SK_HD static StreamKSchedule whole_items(int items, int k_tiles, int workers) {
    StreamKSchedule s;
    s.items = items;
    s.k_tiles = k_tiles;
    s.workers = workers;
    return s;
  }

  /// Items taken whole, round-robin: 0 .. dp_items() - 1 (a multiple of workers).
  KTUNE_SK_HD int dp_items() const { return items - sk_items; }

  /// First stream-K iteration of worker w's share; share_begin(w) for w >= sk_workers is the end.
  KTUNE_SK_HD long long share_begin(int w) const {
    return w >= sk_workers ? sk_iterations : sk_iterations * w / sk_workers;
  }

  /// Where a worker is in its pieces: the next stream-K iteration and the end
  /// of its share, then the next whole item.
  struct Cursor {
    long long next_iteration;
    long long share_end;
    int next_item;
  };
  KTUNE_SK_HD Cursor first_piece(int w) const { return Cursor{share_begin(w), share_begin(w + 1), w}; }

  /// Worker w's next piece into `p`, in the order the worker runs them: its
  /// stream-K share, then its whole items. False when none is left. (One loop
  /// over pieces: kernels inline their piece body once; ptxas serializes wgmma
  /// when the accumulators pass between two copies of the main loop.)
  KTUNE_SK_HD bool next_piece(Cursor& c, StreamKPiece& p) const {
    if (c.next_item < dp_items()) {
      p = StreamKPiece{c.next_item, 0, k_tiles, kStreamKWhole};
      c.next_item += workers;
      return true;
    }
    if (c.next_iteration < c.share_end) {
      const long long g = c.next_iteration;
      p.item = dp_items() + static_cast<int>(g / k_tiles);
      p.k_begin = static_cast<int>(g % k_tiles);
      const long long left = c.share_end - g;
      p.k_end = left < k_tiles - p.k_begin ? p.k_begin + static_cast<int>(left) : k_tiles;
      p.role = p.k_begin > 0 ? kStreamKContributor : (p.k_end < k_tiles ? kStreamKFinisher : kStreamKWhole);
      c.next_iteration += p.k_end - p.k_begin;
      return true;
    }
    return false;
  }

  /// Calls f(piece) for each piece of worker w, in next_piece's order.
  template <typename F>
  KTUNE_SK_HD void for_each_piece(int w, F&& f) const {
    Cursor c = first_piece(w);
    StreamKPiece p;
    while (next_piece(c, p)) f(p);
  }

  /// For a finisher piece of worker w on `item`: the last worker whose share
  /// holds part of the item's remaining k-tiles. Workers w + 1 .. that one
  /// are its contributors, in k order.
  KTUNE_SK_HD int last_contributor(int w, int item) const {
    const long long item_end = static_cast<long long>(item - dp_items() + 1) * k_tiles;
    int last = w;
    while (last + 1 < sk_workers && share_begin(last + 1) < item_end) ++last;
    return last;
  }
};

/// Shares shorter than this many k-tiles are not worth a partial's round
/// trip: writing and re-reading a 128 x 256 fp32 tile takes about as long as
/// a few k-tiles of wgmma on it.
constexpr int kStreamKMinShare = 8;

/// Where contributor pieces leave their work: one BM x BN fp32 partial per
/// block of the grid (block b's at partials + b * BM * BN) and one flag per
/// block, zero between launches: a contributor sets its flag to 1 and the one
/// finisher that reads the partial sets it back to 0.
struct StreamKBuffers {
  float* partials;
  int* flags;
};

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

/// The float4 of a partial slot that holds accumulators 4i .. 4i+3 of m64
/// block mb of consumer thread `thread` (of THREADS): register order, 16
/// bytes per thread per step, consecutive threads adjacent, so each warp's
/// access is 512 contiguous bytes.
template <int ACC, int THREADS>
__device__ __forceinline__ int stream_k_chunk(int mb, int i, int thread) {
  return (mb * (ACC / 4) + i) * THREADS + thread;
}

/// Stores a contributor's accumulators into its partial slot. The fence makes
/// the stores visible at GPU scope before the caller's barrier and flag release.
template <int M_BLOCKS, int ACC, int THREADS>
__device__ __forceinline__ void stream_k_store_partial(const float (&acc)[M_BLOCKS][ACC], float* slot, int thread) {
  float4* out = reinterpret_cast<float4*>(slot);
#pragma unroll
  for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
    for (int i = 0; i < ACC / 4; ++i)
      __stcg(out + stream_k_chunk<ACC, THREADS>(mb, i, thread),
             make_float4(acc[mb][4 * i], acc[mb][4 * i + 1], acc[mb][4 * i + 2], acc[mb][4 * i + 3]));
  __threadfence();
}

/// Accumulators 4i .. 4i+3 of m64 block mb of a contributor's partial. An L2
/// read (ld.global.cg): an L1 line from an earlier launch could hold an older
/// partial.
template <int ACC, int THREADS>
__device__ __forceinline__ float4 stream_k_load_partial(const float* slot, int mb, int i, int thread) {
  return __ldcg(reinterpret_cast<const float4*>(slot) + stream_k_chunk<ACC, THREADS>(mb, i, thread));
}

/// Publishes a stored partial: a GPU-scope release of the block's flag.
__device__ __forceinline__ void stream_k_signal(int* flag) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(flag), "r"(1) : "memory");
}

/// Waits (acquire, GPU scope) until a contributor published its partial, then
/// clears the flag for the next launch: this finisher is its only reader.
__device__ __forceinline__ void stream_k_wait_and_clear(int* flag) {
  int set = 0;
  do {
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(set) : "l"(flag) : "memory");
  } while (set == 0);
  asm volatile("st.relaxed.gpu.global.b32 [%0], %1;\n" ::"l"(flag), "r"(0) : "memory");
}

#endif

}  // namespace ktune_gemm
