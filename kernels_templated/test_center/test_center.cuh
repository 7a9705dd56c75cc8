// A test family (KTUNE_TEST_FAMILIES=1), the template of a new whole-row
// family: y = x - mean(x) over each row, fp32 math. PHASE kFused owns whole
// rows; kCluster shares a row among the blocks of a thread-block cluster;
// kLinked among blocks of a cooperative grid; split rows use a stats kernel
// (kStats: each segment's sum into ws) then an apply kernel (kApply).
#pragma once

#include "kernels_templated/rowwise/common.cuh"

namespace ktune_rw {

template <typename Cfg, int PHASE>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) test_center_kernel(RowwiseArgs a) {
  using T = typename Cfg::T;
  constexpr int VEC = Cfg::VEC, TPR = Cfg::TPR, RPB = Cfg::RPB;
  static_assert((PHASE != kCluster && PHASE != kLinked) || RPB == 1,
                "a block of a shared row holds one segment");
  __shared__ ReduceStorage<float, RPB, TPR, Cfg::RED> red;
  constexpr bool kWholeRows = PHASE == kFused || PHASE == kCluster || PHASE == kLinked;
  // A persistent loop over segments held in shared memory loads the next
  // segment while it writes this one out.
  constexpr bool kRefill = RowShare<Cfg>::kShared && Cfg::STRIDE == kPersistent && kWholeRows;
  int iteration = 0;
  bool prefetched = false;

  for_each_segment<Cfg>(a, [&](const Segment s) {
    T* y = static_cast<T*>(a.y) + s.row * a.cols + s.col0;
    RowShare<Cfg> row = row_share<Cfg>(a, s);
    row.fill(prefetched);

    float sum = 0.f;
    if constexpr (PHASE == kApply) {
      for (int k = 0; k < a.split; ++k) sum += a.ws[s.row * a.split + k];
    } else {
      row.visit([&](long long, const float(&v)[VEC]) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) sum += v[i];
      });
      sum = group_reduce<SumOp, RPB, TPR, Cfg::RED>(sum, red);
    }
    if constexpr (PHASE == kCluster) sum = cluster_reduce<SumOp>(sum, a.split, iteration & 1);
    if constexpr (PHASE == kLinked) sum = linked_reduce<SumOp>(sum, a, s.row, s.vrow);
    ++iteration;

    if constexpr (PHASE == kStats) {
      if (row.lane == 0 && s.len > 0) a.ws[s.vrow] = sum;
    } else {
      const float mean = sum / static_cast<float>(a.cols);
      auto write = [&](long long offset, const float(&v)[VEC]) {
        float o[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) o[i] = v[i] - mean;
        store_vec<T, VEC, Cfg::CACHE>(y + offset, o);
      };
      if constexpr (kRefill) {
        const Segment n = next_segment<Cfg>(a, s);
        row.visit_refilling(static_cast<const T*>(a.x) + n.row * a.cols + n.col0, n.len, write);
        prefetched = true;
      } else {
        row.visit(write);
      }
    }
  });
  if constexpr (PHASE == kCluster)
    cluster_sync();  // no block leaves while a peer still reads its slot
}

}  // namespace ktune_rw
