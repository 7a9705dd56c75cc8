// RMSNorm with weight over the last axis: y = x / sqrt(mean(x^2) + eps) * w,
// fp32 math. PHASE kFused owns whole rows; kCluster shares a row among the
// blocks of a thread-block cluster (partial sums in distributed shared
// memory); kLinked shares it among blocks of a cooperative grid (partial
// sums in global memory); split rows use a stats kernel (kStats: each segment's sum of
// squares into ws) then an apply kernel (kApply).
//
// HOLD_WEIGHTS (weights=smem): a block of one shared-memory segment walks
// rows of the same columns (a whole row, its cluster rank, or, kLinked, the
// same segment of each row: its grid is a whole number of rows' segments), so
// it copies its weight segment into shared memory once, after its row
// segment, and the write pass reads the weights there instead of from L2. A
// block of one row (grid=rows) copies them with the row: the weights' L2
// latency then overlaps the row's DRAM latency instead of stalling the write
// pass.
#pragma once

#include "kernels_templated/rowwise/common.cuh"

namespace ktune_rw {

template <typename Cfg, int PHASE, int HOLD_WEIGHTS = 0>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) rmsnorm_kernel(RowwiseArgs a) {
  using T = typename Cfg::T;
  constexpr int VEC = Cfg::VEC, TPR = Cfg::TPR, RPB = Cfg::RPB;
  static_assert((PHASE != kCluster && PHASE != kLinked) || RPB == 1, "a block of a shared row holds one segment");
  __shared__ ReduceStorage<float, RPB, TPR, Cfg::RED> red;
  // Phases whose kernel finishes whole rows (owned, or shared by a cluster or
  // a linked grid), as opposed to the stats / apply halves of a split.
  constexpr bool kWholeRows = PHASE == kFused || PHASE == kCluster || PHASE == kLinked;
  // A persistent loop over segments held in shared memory loads the next
  // segment while it writes this one out.
  constexpr bool kRefill = RowShare<Cfg>::kShared && Cfg::STRIDE == kPersistent && kWholeRows;
  static_assert(!HOLD_WEIGHTS || (RowShare<Cfg>::kShared && RPB == 1 && kWholeRows),
                "held weights: a block of one shared-memory segment that owns or shares whole rows");
  // The weight segment's 32-bit shared-memory address: right after the row segment.
  const unsigned weights_base =
      static_cast<unsigned>(__cvta_generic_to_shared(dynamic_smem())) + static_cast<unsigned>(a.seg_len * sizeof(T));
  int iteration = 0;
  bool prefetched = false;

  for_each_segment<Cfg>(a, [&](const Segment s) {
    const T* w = static_cast<const T*>(a.w) + s.col0;
    T* y = static_cast<T*>(a.y) + s.row * a.cols + s.col0;
    RowShare<Cfg> row = row_share<Cfg>(a, s);
    if constexpr (HOLD_WEIGHTS) {
      // Every row of this block has these columns (col0 and len do not change
      // along the grid-stride loop). The copies form the oldest cp.async
      // group, so the first wait for the row's copies covers them too; each
      // thread copies and reads only its own vectors' slots.
      if (iteration == 0 && s.len > 0) {
        const int n = static_cast<int>(s.len);
        for (int i = row.lane * VEC; i < n; i += Cfg::SPAN)
          cp_async_at<RowShare<Cfg>::kVecBytes>(weights_base + static_cast<unsigned>(i) * sizeof(T), w + i);
        cp_async_commit();
      }
    }
    row.fill(prefetched);

    float ss = 0.f;
    if constexpr (PHASE == kApply) {
      for (int k = 0; k < a.split; ++k) ss += a.ws[s.row * a.split + k];
    } else {
      // Two accumulators (even and odd elements) halve the dependent FFMA
      // chain per vector; the same instructions.
      float ss_odd = 0.f;
      row.visit([&](long long, const float(&v)[VEC]) {
#pragma unroll
        for (int i = 0; i < VEC; i += 2) ss = fmaf(v[i], v[i], ss);
#pragma unroll
        for (int i = 1; i < VEC; i += 2) ss_odd = fmaf(v[i], v[i], ss_odd);
      });
      ss += ss_odd;
      ss = group_reduce<SumOp, RPB, TPR, Cfg::RED>(ss, red);
    }
    if constexpr (PHASE == kCluster) ss = cluster_reduce<SumOp>(ss, a.split, iteration & 1);
    if constexpr (PHASE == kLinked) ss = linked_reduce<SumOp>(ss, a, s.row, s.vrow);
    ++iteration;

    if constexpr (PHASE == kStats) {
      if (row.lane == 0 && s.len > 0) a.ws[s.vrow] = ss;
    } else {
      const float scale = rsqrtf(ss / static_cast<float>(a.cols) + a.eps);
      auto write = [&](long long offset, const float(&v)[VEC], const float(&wv)[VEC]) {
        float o[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) o[i] = v[i] * scale * wv[i];
        store_vec<T, VEC, Cfg::CACHE>(y + offset, o);
      };
      // One vector written out with its weights from their copy in shared memory (HOLD_WEIGHTS).
      auto write_with_held_weights = [&](long long offset, const float(&v)[VEC]) {
        float wv[VEC];
        load_vec_shared_at<T, VEC>(weights_base + static_cast<unsigned>(offset) * sizeof(T), wv);
        write(offset, v, wv);
      };
      if constexpr (kRefill) {
        const Segment n = next_segment<Cfg>(a, s);
        row.visit_refilling(static_cast<const T*>(a.x) + n.row * a.cols + n.col0, n.len,
                            [&](long long offset, const float(&v)[VEC]) {
                              if constexpr (HOLD_WEIGHTS) {
                                write_with_held_weights(offset, v);
                              } else {
                                float wv[VEC];
                                load_vec<T, VEC, kCacheDefault>(w + offset, wv);
                                write(offset, v, wv);
                              }
                            });
        prefetched = true;
      } else if constexpr (HOLD_WEIGHTS) {
        row.visit(write_with_held_weights);
      } else {
        row.visit_with(w, write);
      }
    }
  });
  if constexpr (PHASE == kCluster) cluster_sync();  // no block leaves while a peer still reads its slot
}

}  // namespace ktune_rw
