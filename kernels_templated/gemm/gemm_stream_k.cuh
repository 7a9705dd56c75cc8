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
// Status: the schedule and its invariants are tested on the host
// (tests/kernels/gemm_stream_k_test.cpp), and NVRTC compiles it for sm_90a.
// gemm_wgmma.cuh does not use it: wired in (branch wip/stream-k-v11), it
// verified on the H200 but ran 4-55% slower than the same configurations
// without it, share first or last (bench/results/gemm-hopper-2026-12-02-v11.md).
// ncu counted 51% more L2 read sectors at 2048x4096x4096: its workers run at
// staggered k-offsets, where the whole-tile rounds move in lock-step and their
// SMs ask for the same operand slabs at the same time.
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

  /// Items taken whole, round-robin: 0 .. dp_items() - 1 (a multiple of workers).
  KTUNE_SK_HD int dp_items() const { return items - sk_items; }

  /// First stream-K iteration of worker w's share; share_begin(w) for w >= sk_workers is the end.
  KTUNE_SK_HD long long share_begin(int w) const {
    return w >= sk_workers ? sk_iterations : sk_iterations * w / sk_workers;
  }

  /// Calls f(piece) for each piece of worker w, in the order the worker
  /// runs them: its stream-K share, then its whole items.
  template <typename F>
  KTUNE_SK_HD void for_each_piece(int w, F&& f) const {
    const long long end = share_begin(w + 1);
    for (long long g = share_begin(w); g < end;) {
      StreamKPiece p;
      p.item = dp_items() + static_cast<int>(g / k_tiles);
      p.k_begin = static_cast<int>(g % k_tiles);
      const long long left = end - g;
      p.k_end = left < k_tiles - p.k_begin ? p.k_begin + static_cast<int>(left) : k_tiles;
      p.role = p.k_begin > 0 ? kStreamKContributor : (p.k_end < k_tiles ? kStreamKFinisher : kStreamKWhole);
      f(p);
      g += p.k_end - p.k_begin;
    }
    for (int item = w; item < dp_items(); item += workers) f(StreamKPiece{item, 0, k_tiles, kStreamKWhole});
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

}  // namespace ktune_gemm
