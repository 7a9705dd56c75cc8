// Row-wise device code: row geometry. Segments of split rows, the
// compile-time configuration (RowCfg), the block's walk over segments, and
// RowShare: a thread's share of a row, streamed, in registers or in shared memory.
#pragma once

#include "kernels_templated/rowwise/args.h"
#include "kernels_templated/rowwise/cp_async.cuh"
#include "kernels_templated/rowwise/elements.cuh"
#include "kernels_templated/rowwise/loads.cuh"
#include "kernels_templated/rowwise/reductions.cuh"
#include "kernels_templated/rowwise/stores.cuh"

namespace ktune_rw {

// ---- row geometry shared by the row-wise kernels

/// Where a virtual row (a row segment) lies: row index, first column, length.
struct Segment {
  long long vrow;  ///< row * split + segment index (also past the last row, then len == 0)
  long long row;
  long long col0;
  long long len;  ///< 0 for a row group that has no work this iteration
};

__device__ __forceinline__ Segment segment_of(const RowwiseArgs& a, long long vrow) {
  Segment s;
  const long long vrows = a.rows * a.split;
  if (vrow >= vrows) return Segment{vrow, 0, 0, 0};
  s.vrow = vrow;
  // split is split x cluster, both powers of two in every space: a shift and
  // a mask, not a 64-bit division per row and thread (a few dozen
  // instructions each time, twice a row in a persistent refilling loop).
  // The launch plan guarantees it (plan_launch refuses any other split).
  const int shift = __ffs(a.split) - 1;
  s.row = vrow >> shift;
  s.col0 = (vrow & (a.split - 1)) * a.seg_len;
  long long rest = a.cols - s.col0;
  s.len = rest < a.seg_len ? (rest > 0 ? rest : 0) : a.seg_len;
  return s;
}

/// The segment the calling thread's group takes in the next iteration of a
/// grid-stride loop (len == 0 past the last row).
template <typename Cfg>
__device__ __forceinline__ Segment next_segment(const RowwiseArgs& a, const Segment& s) {
  return segment_of(a, s.vrow + static_cast<long long>(gridDim.x) * Cfg::RPB);
}

/// RowCfg::STRIDE of a persistent grid-stride loop: the launcher sizes the
/// grid to what the device holds at once, and segments held in shared memory
/// load the next segment while the current one is written out.
constexpr int kPersistent = 2;

/// Compile-time description of a row-wise configuration.
template <typename T_, int RPB_, int TPR_, int VEC_, int RED_, int CACHE_, int STRIDE_, int UNROLL_,
          int CHUNKS_, int MINB_ = 0>
struct RowCfg {
  using T = T_;
  static constexpr int RPB = RPB_;      ///< rows (segments) per block
  static constexpr int TPR = TPR_;      ///< threads per row
  static constexpr int VEC = VEC_;      ///< elements per access
  static constexpr int RED = RED_;      ///< Reduction
  static constexpr int CACHE = CACHE_;  ///< CacheHint for the streamed input
  static constexpr int STRIDE =
      STRIDE_;  ///< 0: one pass; 1: grid-stride loop over rows; 2: persistent (see kPersistent)
  static constexpr int UNROLL = UNROLL_;  ///< accesses in flight per thread in streaming loops
  static constexpr int CHUNKS =
      CHUNKS_;  ///< >0: held in registers (CHUNKS accesses per thread); kSharedHeld; 0: streamed
  static constexpr int THREADS = RPB * TPR;
  /// __launch_bounds__ minimum blocks: MINB_ when the launch plan gives it
  /// (a segment held in shared memory: the blocks per SM its threads and
  /// shared memory allow, so registers do not cut that residency, which is
  /// what overlaps one block's loads with another's work); else 1 for a held
  /// segment, so ptxas may use the whole per-thread budget rather than spill
  /// to raise occupancy (seen: 8 bytes spilled at 40 registers of 128
  /// allowed); 0 (unspecified) for streaming.
  static constexpr int MIN_BLOCKS = MINB_ > 0 ? MINB_ : (CHUNKS != 0 ? 1 : 0);
  static constexpr int SPAN = TPR * VEC;  ///< elements one sweep of the group covers
  static_assert(THREADS <= 1024 && THREADS % 32 == 0, "block of whole warps, at most 1024 threads");
  static_assert((TPR & (TPR - 1)) == 0, "threads per row must be a power of two");
};

/// Drives the block over virtual rows: one pass (block b takes rows b*RPB..)
/// or a grid-stride loop. Every thread runs every iteration (len == 0 when its
/// group has no row), so reductions that synchronize stay uniform.
template <typename Cfg, typename Body>
__device__ __forceinline__ void for_each_segment(const RowwiseArgs& a, Body&& body) {
  const long long vrows = a.rows * a.split;
  const int group = threadIdx.x / Cfg::TPR;
  const long long step = Cfg::STRIDE ? static_cast<long long>(gridDim.x) * Cfg::RPB : vrows;
  for (long long base = static_cast<long long>(blockIdx.x) * Cfg::RPB; base < vrows; base += step)
    body(segment_of(a, base + group));
}

/// The block's dynamic shared memory (segments held in shared memory), 16-byte aligned.
__device__ __forceinline__ unsigned char* dynamic_smem() {
  extern __shared__ __align__(16) unsigned char ktune_rw_dynamic_smem[];
  return ktune_rw_dynamic_smem;
}

/// One thread's share of a row segment: the vectors at lane*VEC + k*SPAN
/// below len. When the configuration holds the segment (registers, or shared
/// memory in the input dtype), fill() reads it from memory once and every
/// visit reads the held copy; a streaming configuration reads memory on every
/// visit (from L2 while the rows in flight still fit there).
template <typename Cfg>
struct RowShare {
  using T = typename Cfg::T;
  static constexpr int VEC = Cfg::VEC, SPAN = Cfg::SPAN;
  static constexpr bool kRegisters = Cfg::CHUNKS > 0;
  static constexpr bool kShared = Cfg::CHUNKS == kSharedHeld;
  static constexpr bool kHeld = kRegisters || kShared;
  static constexpr int kVecBytes = VecBytes<T, VEC>::kBytes;
  /// kShared: vectors per cp.async commit group (at least 64 bytes of this
  /// thread's share: 4 vectors of 16 bytes), in visiting order. The first
  /// visit waits once per group and then reads the group's vectors together.
  /// One group per vector cost a commit and a wait_group switch per vector,
  /// and a share of more than 8 vectors (1 MiB softmax rows over 16 blocks:
  /// 16 per thread) waited for 9 groups before its first vector, since
  /// wait_group's immediate stops at 7.
  static constexpr int kGroupVectors = kVecBytes >= 16 ? 4 : 64 / kVecBytes;

  const T* x;
  long long len;
  int lane;
  T* held;  ///< this row group's shared-memory segment (kShared)
  /// kShared: copies of this segment may still be in flight, one cp.async
  /// group per kGroupVectors vectors of this thread in visiting order; the
  /// first visit waits for each group just before reading it.
  bool landing;
  float v[kRegisters ? Cfg::CHUNKS : 1][VEC];

  /// Vectors of this thread in a segment of `n` elements.
  __device__ __forceinline__ long long vectors_in(long long n) const {
    const long long first = static_cast<long long>(lane) * VEC;
    return n > first ? (n - first + SPAN - 1) / SPAN : 0;
  }

  /// 32-bit shared-memory address of the held segment (kShared). A held
  /// segment fits the block's shared memory, so its element offsets are ints.
  __device__ __forceinline__ unsigned held_base() const {
    return static_cast<unsigned>(__cvta_generic_to_shared(held));
  }

  /// Copies the vector at `offset` of `src` into the same slot of the held
  /// segment and closes a commit group after every kGroupVectors copies
  /// (counted by `copies`; the caller closes a last partial group).
  __device__ __forceinline__ void copy_one(unsigned base, const T* src, int offset, int& copies) {
    cp_async_at<kVecBytes, Cfg::CACHE>(base + static_cast<unsigned>(offset) * sizeof(T),
                                       src + offset);
    if (++copies % kGroupVectors == 0) cp_async_commit();
  }

  /// Starts reading a held segment from memory (no-op when streaming).
  /// Registers: loaded here. Shared memory: the cp.async copies are issued
  /// here, one group per kGroupVectors vectors, and the first visit consumes
  /// each group as it lands (its work overlaps the later loads).
  /// `prefetched`: the copies were issued by visit_refilling over the
  /// previous segment, in the same groups.
  __device__ __forceinline__ void fill(bool prefetched = false) {
    if constexpr (kRegisters) {
#pragma unroll
      for (int c = 0; c < Cfg::CHUNKS; ++c) {
        const long long idx = static_cast<long long>(c * Cfg::TPR + lane) * VEC;
        if (idx < len) load_vec<T, VEC, Cfg::CACHE>(x + idx, v[c]);
      }
    } else if constexpr (kShared) {
      // Each thread copies and later reads only its own vectors: waiting for
      // its own copies is enough, no block barrier.
      if (!prefetched) {
        constexpr int G = kGroupVectors;
        const unsigned base = held_base();
        const int n = static_cast<int>(len);
        int i = lane * VEC;
        for (; i + (G - 1) * SPAN < n; i += G * SPAN) {
#pragma unroll
          for (int u = 0; u < G; ++u)
            cp_async_at<kVecBytes, Cfg::CACHE>(
                base + static_cast<unsigned>(i + u * SPAN) * sizeof(T), x + i + u * SPAN);
          cp_async_commit();
        }
        int copies = 0;
        for (; i < n; i += SPAN) copy_one(base, x, i, copies);
        if (copies % G != 0) cp_async_commit();
      }
      landing = true;
    }
  }

  /// visit() of a shared-memory segment that refills each slot, once used,
  /// with the same slot of the next segment this thread's group will hold
  /// (next_x, next_len): in a persistent loop the next row's loads are in
  /// flight while this row is written out. fill(true) then issues nothing.
  template <typename F>
  __device__ __forceinline__ void visit_refilling(const T* next_x, long long next_len, F&& f) {
    static_assert(kShared, "refilling applies to segments held in shared memory");
    constexpr int G = kGroupVectors;
    settle();
    const unsigned base = held_base();
    const int n = static_cast<int>(len), next_n = static_cast<int>(next_len);
    const int both = n < next_n ? n : next_n;
    int i = lane * VEC;
    // Whole groups present in both segments: G vectors read, written out and
    // refilled, one commit, no per-vector test. f has consumed each slot's
    // value (its results are stored) before the copy into the slot is
    // issued, so the copy cannot overtake the read.
    for (; i + (G - 1) * SPAN < both; i += G * SPAN) {
      // One 64-bit base per group; the vectors' addresses are constant
      // offsets from it (immediates in the loads and stores).
      const long long first = i;
      const T* src = next_x + first;
#pragma unroll
      for (int u = 0; u < G; ++u) {
        const unsigned slot = base + static_cast<unsigned>(i + u * SPAN) * sizeof(T);
        float t[VEC];
        load_vec_shared_at<T, VEC>(slot, t);
        f(first + u * SPAN, t);
        cp_async_at<kVecBytes, Cfg::CACHE>(slot, src + u * SPAN);
      }
      cp_async_commit();
    }
    // The rest (a last partial group, or segments of different lengths),
    // from a group boundary: groups of G copies in slot order, as fill()
    // commits them.
    int copies = 0;
    for (; i < n; i += SPAN) {
      float t[VEC];
      load_vec_shared_at<T, VEC>(base + static_cast<unsigned>(i) * sizeof(T), t);
      f(i, t);
      if (i < next_n) copy_one(base, next_x, i, copies);
    }
    for (; i < next_n; i += SPAN) copy_one(base, next_x, i, copies);
    if (copies % G != 0) cp_async_commit();
  }

  /// Waits for every copy of a shared-memory segment still landing.
  __device__ __forceinline__ void settle() {
    if constexpr (kShared) {
      if (landing) cp_async_wait_all();
      landing = false;
    }
  }

  /// kShared: walks this thread's vectors in groups of kGroupVectors in
  /// visiting order; on the first visit of a landing segment one wait_group
  /// precedes each group. TOGETHER: f(offset, const unsigned
  /// (&)[kGroupVectors][kWords], count) once per group with the raw words of
  /// its vectors (widen() turns one into floats), its shared-memory reads
  /// issued together (vector u at offset + u * SPAN, present for u < count:
  /// kGroupVectors, a constant the body folds, except in a last partial group). Otherwise
  /// f(offset, const float (&)[VEC]) per vector, each read just before its
  /// use (fewer registers live).
  template <bool TOGETHER, typename F>
  __device__ __forceinline__ void visit_groups(F&& f) {
    static_assert(kShared, "vector groups apply to segments held in shared memory");
    constexpr int G = kGroupVectors;
    const unsigned base = held_base();
    const int n = static_cast<int>(len);
    // Groups of this segment still in flight after the one visited next.
    long long pending = landing ? (vectors_in(len) + G - 1) / G - 1 : 0;
    const bool wait = landing;
    landing = false;
    for (int i = lane * VEC; i < n; i += G * SPAN) {
      if (wait) cp_async_wait_pending(pending--);
      const bool full = i + (G - 1) * SPAN < n;
      if constexpr (TOGETHER) {
        unsigned t[G][VecBytes<T, VEC>::kWords];
        if (full) {
#pragma unroll
          for (int u = 0; u < G; ++u)
            load_raw_shared_at<T, VEC>(base + static_cast<unsigned>(i + u * SPAN) * sizeof(T),
                                       t[u]);
          f(i, t, G);
        } else {
          const int count = (n - i + SPAN - 1) / SPAN;
#pragma unroll
          for (int u = 0; u < G; ++u)
            if (u < count)
              load_raw_shared_at<T, VEC>(base + static_cast<unsigned>(i + u * SPAN) * sizeof(T),
                                         t[u]);
          f(i, t, count);
        }
      } else if (full) {  // one basic block: ptxas may issue the reads early
#pragma unroll
        for (int u = 0; u < G; ++u) {
          float t[VEC];
          load_vec_shared_at<T, VEC>(base + static_cast<unsigned>(i + u * SPAN) * sizeof(T), t);
          f(i + u * SPAN, t);
        }
      } else {
#pragma unroll
        for (int u = 0; u < G; ++u)
          if (i + u * SPAN < n) {
            float t[VEC];
            load_vec_shared_at<T, VEC>(base + static_cast<unsigned>(i + u * SPAN) * sizeof(T), t);
            f(i + u * SPAN, t);
          }
      }
    }
  }

  /// f(offset, const float (&)[VEC]) for each vector of the share.
  template <typename F>
  __device__ __forceinline__ void visit(F&& f) {
    if constexpr (kRegisters) {
#pragma unroll
      for (int c = 0; c < Cfg::CHUNKS; ++c) {
        const long long idx = static_cast<long long>(c * Cfg::TPR + lane) * VEC;
        if (idx < len) f(idx, v[c]);
      }
    } else if constexpr (kShared) {
      // First visit: each group of vectors waits only for its own copies, so
      // this pass runs behind the loads, not after them.
      visit_groups<false>(f);
    } else {
      for_each_row_vector<T, VEC, Cfg::CACHE, SPAN, Cfg::UNROLL>(
          x, len, lane, [&](int, long long offset, const float(&t)[VEC]) { f(offset, t); });
    }
  }

  /// f(offset, x vector, w vector) with the matching elements of `w` (a
  /// per-column vector that stays in cache); streaming loads both in one
  /// unrolled batch.
  template <typename F>
  __device__ __forceinline__ void visit_with(const T* w, F&& f) {
    if constexpr (kHeld) {
      visit([&](long long offset, const float(&t)[VEC]) {
        float wv[VEC];
        load_vec<T, VEC, kCacheDefault>(w + offset, wv);
        f(offset, t, wv);
      });
    } else {
      constexpr long long kStep = static_cast<long long>(SPAN) * Cfg::UNROLL;
      for (long long base = static_cast<long long>(lane) * VEC; base < len; base += kStep) {
        float t[Cfg::UNROLL][VEC], wv[Cfg::UNROLL][VEC];
#pragma unroll
        for (int u = 0; u < Cfg::UNROLL; ++u) {
          if (base + u * SPAN < len) {
            load_vec<T, VEC, Cfg::CACHE>(x + base + u * SPAN, t[u]);
            load_vec<T, VEC, kCacheDefault>(w + base + u * SPAN, wv[u]);
          }
        }
#pragma unroll
        for (int u = 0; u < Cfg::UNROLL; ++u)
          if (base + u * SPAN < len) f(base + u * SPAN, t[u], wv[u]);
      }
    }
  }
};

/// The row share of the calling thread's group for segment s.
template <typename Cfg>
__device__ __forceinline__ RowShare<Cfg> row_share(const RowwiseArgs& a, const Segment& s) {
  using T = typename Cfg::T;
  RowShare<Cfg> r;
  r.x = static_cast<const T*>(a.x) + s.row * a.cols + s.col0;
  r.len = s.len;
  r.lane = threadIdx.x % Cfg::TPR;
  r.held = nullptr;
  r.landing = false;
  if constexpr (Cfg::CHUNKS == kSharedHeld)
    r.held = reinterpret_cast<T*>(dynamic_smem()) +
             static_cast<long long>(threadIdx.x / Cfg::TPR) * a.seg_len;
  return r;
}

}  // namespace ktune_rw
