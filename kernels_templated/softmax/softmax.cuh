// Softmax over the last axis: y = exp(x - max) / sum(exp(x - max)), fp32 math.
// One kernel (PHASE 0) when a row group owns a whole row; for split rows a
// stats kernel (PHASE 1: each segment's max and sum into ws) then an apply
// kernel (PHASE 2: combine the row's partials, write its segment).
#pragma once

#include "kernels_templated/rowwise/common.cuh"

namespace ktune_rw {

/// ONLINE = 1: one pass of running (max, sum) per thread and a single pair
/// reduction; ONLINE = 0: a max reduction, then a sum reduction.
template <typename Cfg, int ONLINE, int PHASE>
__global__ void __launch_bounds__(Cfg::THREADS) softmax_kernel(RowwiseArgs a) {
  using T = typename Cfg::T;
  constexpr int VEC = Cfg::VEC, TPR = Cfg::TPR, RPB = Cfg::RPB;
  static_assert(PHASE != kCluster || (Cfg::CHUNKS > 0 && RPB == 1 && Cfg::STRIDE == 0),
                "a cluster row is register-held, one segment per block, one pass");
  __shared__ ReduceStorage<float, RPB, TPR, Cfg::RED> red_f;
  __shared__ ReduceStorage<MaxSum, RPB, TPR, Cfg::RED> red_p;
  const int lane = threadIdx.x % TPR;

  for_each_segment<Cfg>(a, [&](const Segment s) {
    const T* x = static_cast<const T*>(a.x) + s.row * a.cols + s.col0;
    T* y = static_cast<T*>(a.y) + s.row * a.cols + s.col0;
    const long long len = s.len;
    MaxSum stat;

    if constexpr (Cfg::CHUNKS > 0) {
      // The segment stays in registers: one read from memory.
      float v[Cfg::CHUNKS][VEC];
#pragma unroll
      for (int c = 0; c < Cfg::CHUNKS; ++c) {
        const long long idx = static_cast<long long>(c * TPR + lane) * VEC;
        if (idx < len) {
          load_vec<T, VEC, Cfg::CACHE>(x + idx, v[c]);
        } else {
#pragma unroll
          for (int i = 0; i < VEC; ++i) v[c][i] = neg_inf();
        }
      }
      if constexpr (PHASE == kApply) {
        stat = MaxSumOp::identity();
        for (int k = 0; k < a.split; ++k)
          stat = MaxSumOp::combine(stat, MaxSum{a.ws[2 * (s.row * a.split + k)], a.ws[2 * (s.row * a.split + k) + 1]});
      } else {
        float m = neg_inf();
#pragma unroll
        for (int c = 0; c < Cfg::CHUNKS; ++c)
#pragma unroll
          for (int i = 0; i < VEC; ++i) m = fmaxf(m, v[c][i]);
        if constexpr (!ONLINE) m = group_reduce<MaxOp, RPB, TPR, Cfg::RED>(m, red_f);
        float sum = 0.f;
        if (m != neg_inf()) {
#pragma unroll
          for (int c = 0; c < Cfg::CHUNKS; ++c)
#pragma unroll
            for (int i = 0; i < VEC; ++i) sum += fast_exp(v[c][i] - m);
        }
        if constexpr (ONLINE) {
          stat = group_reduce<MaxSumOp, RPB, TPR, Cfg::RED>(MaxSum{m, sum}, red_p);
        } else {
          stat = MaxSum{m, group_reduce<SumOp, RPB, TPR, Cfg::RED>(sum, red_f)};
        }
        if constexpr (PHASE == kCluster) {
          // One block per segment (RPB == 1): thread 0 publishes the block's
          // pair, every thread combines the cluster's pairs.
          __shared__ float cluster_pair[2];
          if (threadIdx.x == 0) {
            cluster_pair[0] = stat.m;
            cluster_pair[1] = stat.s;
          }
          cluster_sync();
          stat = MaxSumOp::identity();
          for (int r = 0; r < a.split; ++r)
            stat = MaxSumOp::combine(stat, MaxSum{load_peer(&cluster_pair[0], r), load_peer(&cluster_pair[1], r)});
          cluster_sync();  // no block leaves (or reuses its slot) while a peer still reads it
        }
      }
      if constexpr (PHASE == kStats) {
        if (lane == 0 && len > 0) {
          a.ws[2 * s.vrow] = stat.m;
          a.ws[2 * s.vrow + 1] = stat.s;
        }
      } else {
        const float inv = 1.f / stat.s;
#pragma unroll
        for (int c = 0; c < Cfg::CHUNKS; ++c) {
          const long long idx = static_cast<long long>(c * TPR + lane) * VEC;
          if (idx < len) {
            float o[VEC];
#pragma unroll
            for (int i = 0; i < VEC; ++i) o[i] = fast_exp(v[c][i] - stat.m) * inv;
            store_vec<T, VEC, Cfg::CACHE>(y + idx, o);
          }
        }
      }
    } else {
      // Streaming: the segment is read again for the output (from L2 when
      // the rows in flight fit there).
          if constexpr (PHASE == kApply) {
        stat = MaxSumOp::identity();
        for (int k = 0; k < a.split; ++k)
          stat = MaxSumOp::combine(stat, MaxSum{a.ws[2 * (s.row * a.split + k)], a.ws[2 * (s.row * a.split + k) + 1]});
      } else if constexpr (ONLINE) {
        MaxSum st = MaxSumOp::identity();
        for_each_row_vector<T, VEC, Cfg::CACHE, Cfg::SPAN, Cfg::UNROLL>(
            x, len, lane, [&](int, long long, const float(&v)[VEC]) {
              float mv = v[0];
#pragma unroll
              for (int i = 1; i < VEC; ++i) mv = fmaxf(mv, v[i]);
              if (mv > st.m) {
                st.s *= fast_exp(st.m - mv);
                st.m = mv;
              }
#pragma unroll
              for (int i = 0; i < VEC; ++i) st.s += fast_exp(v[i] - st.m);
            });
        stat = group_reduce<MaxSumOp, RPB, TPR, Cfg::RED>(st, red_p);
      } else {
        float m = neg_inf();
        for_each_row_vector<T, VEC, Cfg::CACHE, Cfg::SPAN, Cfg::UNROLL>(
            x, len, lane, [&](int, long long, const float(&v)[VEC]) {
#pragma unroll
              for (int i = 0; i < VEC; ++i) m = fmaxf(m, v[i]);
            });
        m = group_reduce<MaxOp, RPB, TPR, Cfg::RED>(m, red_f);
        float sum = 0.f;
        for_each_row_vector<T, VEC, Cfg::CACHE, Cfg::SPAN, Cfg::UNROLL>(
            x, len, lane, [&](int, long long, const float(&v)[VEC]) {
#pragma unroll
              for (int i = 0; i < VEC; ++i) sum += fast_exp(v[i] - m);
            });
        stat = MaxSum{m, group_reduce<SumOp, RPB, TPR, Cfg::RED>(sum, red_f)};
      }
      if constexpr (PHASE == kStats) {
        if (lane == 0 && len > 0) {
          a.ws[2 * s.vrow] = stat.m;
          a.ws[2 * s.vrow + 1] = stat.s;
        }
      } else {
        const float inv = 1.f / stat.s;
        for_each_row_vector<T, VEC, Cfg::CACHE, Cfg::SPAN, Cfg::UNROLL>(
            x, len, lane, [&](int, long long offset, const float(&v)[VEC]) {
              float o[VEC];
#pragma unroll
              for (int i = 0; i < VEC; ++i) o[i] = fast_exp(v[i] - stat.m) * inv;
              store_vec<T, VEC, Cfg::CACHE>(y + offset, o);
            });
      }
    }
  });
}

}  // namespace ktune_rw
