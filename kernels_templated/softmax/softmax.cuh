// Softmax over the last axis: y = exp(x - max) / sum(exp(x - max)), fp32 math.
// One kernel (PHASE kFused) when a row group owns a whole row; a thread-block
// cluster whose blocks share a row (kCluster: partials meet in distributed
// shared memory); blocks of a cooperative grid that share a row (kLinked:
// partials meet in global memory); or, for split rows, a stats kernel (kStats: each segment's
// max and sum into ws) then an apply kernel (kApply: combine the row's
// partials, write its segment).
#pragma once

#include "kernels_templated/rowwise/common.cuh"

namespace ktune_rw {

/// ONLINE = 1: one pass of running (max, sum) per thread and a single pair
/// reduction (a register-held segment: a local max, then the sum against it);
/// ONLINE = 0: a max reduction, then a sum reduction. A held segment
/// (registers or shared memory) is read from memory once either way.
template <typename Cfg, int ONLINE, int PHASE>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) softmax_kernel(RowwiseArgs a) {
  constexpr int VEC = Cfg::VEC, TPR = Cfg::TPR, RPB = Cfg::RPB;
  static_assert((PHASE != kCluster && PHASE != kLinked) || RPB == 1, "a block of a shared row holds one segment");
  using Share = RowShare<Cfg>;
  __shared__ ReduceStorage<float, RPB, TPR, Cfg::RED> red_f;
  __shared__ ReduceStorage<MaxSum, RPB, TPR, Cfg::RED> red_p;
  // A persistent loop over segments held in shared memory loads the next
  // segment while it writes this one out.
  constexpr bool kRefill = Share::kShared && Cfg::STRIDE == kPersistent && (PHASE == kFused || PHASE == kCluster || PHASE == kLinked);
  // Statistics over groups of vectors of a shared-memory segment hold a
  // group's raw words and partial sums at once: about 75 registers at 256
  // threads, where __launch_bounds__ leaves 85 (3 blocks). Under a tighter
  // budget (512 threads x 3 blocks: 42) ptxas spilled, so those take the
  // per-vector statistics (still waiting for copies once per group).
  constexpr bool kGroupStats = 65536 / (Cfg::THREADS * (Cfg::MIN_BLOCKS > 0 ? Cfg::MIN_BLOCKS : 1)) >= 64;
  int iteration = 0;
  bool prefetched = false;

  for_each_segment<Cfg>(a, [&](const Segment s) {
    typename Cfg::T* y = static_cast<typename Cfg::T*>(a.y) + s.row * a.cols + s.col0;
    Share row = row_share<Cfg>(a, s);
    row.fill(prefetched);
    MaxSum stat;

    if constexpr (PHASE == kApply) {
      stat = MaxSumOp::identity();
      for (int k = 0; k < a.split; ++k)
        stat = MaxSumOp::combine(stat, MaxSum{a.ws[2 * (s.row * a.split + k)], a.ws[2 * (s.row * a.split + k) + 1]});
    } else if constexpr (Share::kShared && ONLINE && kGroupStats) {
      // One visit of running (max, sum) over groups of vectors read together
      // as their copies land (the exponentials overlap the remaining loads):
      // one max test and rescale per group, not per vector, and one partial
      // sum per vector, so the additions are not one dependent chain.
      constexpr int G = Share::kGroupVectors, W = VecBytes<typename Cfg::T, VEC>::kWords;
      MaxSum st = MaxSumOp::identity();
      row.template visit_groups<true>([&](int, const unsigned(&w)[G][W], int count) {
        const float mv = max_of_raw<typename Cfg::T, VEC>(w, count);
        if (mv > st.m) {
          st.s *= fast_exp(st.m - mv);
          st.m = mv;
        }
        if (st.m == neg_inf()) return;  // only -inf so far: every term is 0
        float part[G];
#pragma unroll
        for (int u = 0; u < G; ++u) {
          part[u] = 0.f;
          if (u < count) {
            float v[VEC];
            widen<typename Cfg::T, VEC>(w[u], v);
#pragma unroll
            for (int i = 0; i < VEC; ++i) part[u] += exp_shifted(v[i], st.m);
          }
        }
#pragma unroll
        for (int width = G / 2; width > 0; width /= 2)
#pragma unroll
          for (int u = 0; u < width; ++u) part[u] += part[u + width];
        st.s += part[0];
      });
      stat = group_reduce<MaxSumOp, RPB, TPR, Cfg::RED>(st, red_p);
    } else if constexpr (!Share::kRegisters && ONLINE) {
      // Streaming: one visit (one read of memory) for the statistics, a
      // running (max, sum) that is rescaled when a vector raises the maximum.
      MaxSum st = MaxSumOp::identity();
      row.visit([&](long long, const float(&v)[VEC]) {
        float mv = v[0];
#pragma unroll
        for (int i = 1; i < VEC; ++i) mv = fmaxf(mv, v[i]);
        if (mv > st.m) {
          st.s *= fast_exp(st.m - mv);
          st.m = mv;
        }
        if (st.m == neg_inf()) return;  // only -inf so far: every term is 0
#pragma unroll
        for (int i = 0; i < VEC; ++i) st.s += exp_shifted(v[i], st.m);
      });
      stat = group_reduce<MaxSumOp, RPB, TPR, Cfg::RED>(st, red_p);
    } else {
      // Registers (cheap to visit twice: a local max, then the sum against
      // it) or two-pass (a max reduction between two visits).
      float m = neg_inf();
      row.visit([&](long long, const float(&v)[VEC]) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) m = fmaxf(m, v[i]);
      });
      if constexpr (!ONLINE) m = group_reduce<MaxOp, RPB, TPR, Cfg::RED>(m, red_f);
      float sum = 0.f;
      if (m != neg_inf()) {
        row.visit([&](long long, const float(&v)[VEC]) {
#pragma unroll
          for (int i = 0; i < VEC; ++i) sum += exp_shifted(v[i], m);
        });
      }
      if constexpr (ONLINE)
        stat = group_reduce<MaxSumOp, RPB, TPR, Cfg::RED>(MaxSum{m, sum}, red_p);
      else
        stat = MaxSum{m, group_reduce<SumOp, RPB, TPR, Cfg::RED>(sum, red_f)};
    }
    if constexpr (PHASE == kCluster) stat = cluster_reduce<MaxSumOp>(stat, a.split, iteration & 1);
    if constexpr (PHASE == kLinked) stat = linked_reduce<MaxSumOp>(stat, a, s.row, s.vrow);
    ++iteration;

    if constexpr (PHASE == kStats) {
      if (row.lane == 0 && s.len > 0) {
        a.ws[2 * s.vrow] = stat.m;
        a.ws[2 * s.vrow + 1] = stat.s;
      }
    } else {
      // 16-bit outputs: exp(x - m) / s = 2^((x - m) log2(e) - log2(s)), no
      // multiply. Folding log2(s) into the exponent adds an absolute error of
      // about ulp(30) = 2e-6 to an argument of magnitude <= ~30, a relative
      // error of ~1.5e-6 in the result: a thousandth of bf16's rounding
      // (2e-3) and of fp16's tolerance. fp32 outputs keep the exact reciprocal.
      constexpr bool kFoldScale = sizeof(typename Cfg::T) == 2;
      const float inv = 1.f / stat.s;
      const float log2_s = __log2f(stat.s);
      auto write = [&](long long offset, const float(&v)[VEC]) {
        float o[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i)
          o[i] = kFoldScale ? exp_shifted_scaled(v[i], stat.m, log2_s)
                            : exp_shifted(v[i], stat.m) * inv;
        store_vec<typename Cfg::T, VEC, Cfg::CACHE>(y + offset, o);
      };
      if constexpr (kRefill) {
        const Segment n = next_segment<Cfg>(a, s);
        row.visit_refilling(static_cast<const typename Cfg::T*>(a.x) + n.row * a.cols + n.col0, n.len, write);
        prefetched = true;
      } else {
        row.visit(write);
      }
    }
  });
  if constexpr (PHASE == kCluster) cluster_sync();  // no block leaves while a peer still reads its slot
}

}  // namespace ktune_rw
