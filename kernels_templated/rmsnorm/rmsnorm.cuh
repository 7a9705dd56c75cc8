// RMSNorm with weight over the last axis: y = x / sqrt(mean(x^2) + eps) * w,
// fp32 math. PHASE 0 owns whole rows; split rows use a stats kernel (PHASE 1:
// each segment's sum of squares into ws) then an apply kernel (PHASE 2).
#pragma once

#include "kernels_templated/rowwise/common.cuh"

namespace ktune_rw {

template <typename Cfg, int PHASE>
__global__ void __launch_bounds__(Cfg::THREADS) rmsnorm_kernel(RowwiseArgs a) {
  using T = typename Cfg::T;
  constexpr int VEC = Cfg::VEC, TPR = Cfg::TPR, RPB = Cfg::RPB;
  static_assert(PHASE != kCluster || (Cfg::CHUNKS > 0 && RPB == 1 && Cfg::STRIDE == 0),
                "a cluster row is register-held, one segment per block, one pass");
  __shared__ ReduceStorage<float, RPB, TPR, Cfg::RED> red;
  const int lane = threadIdx.x % TPR;

  for_each_segment<Cfg>(a, [&](const Segment s) {
    const T* x = static_cast<const T*>(a.x) + s.row * a.cols + s.col0;
    const T* w = static_cast<const T*>(a.w) + s.col0;
    T* y = static_cast<T*>(a.y) + s.row * a.cols + s.col0;
    const long long len = s.len;

    auto row_scale = [&](float sumsq) { return rsqrtf(sumsq / static_cast<float>(a.cols) + a.eps); };
    auto combined_partials = [&]() {
      float ss = 0.f;
      for (int k = 0; k < a.split; ++k) ss += a.ws[s.row * a.split + k];
      return ss;
    };

    if constexpr (Cfg::CHUNKS > 0) {
      // The segment stays in registers: one read of x from memory.
      float v[Cfg::CHUNKS][VEC];
      float ss = 0.f;
#pragma unroll
      for (int c = 0; c < Cfg::CHUNKS; ++c) {
        const long long idx = static_cast<long long>(c * TPR + lane) * VEC;
        if (idx < len) {
          load_vec<T, VEC, Cfg::CACHE>(x + idx, v[c]);
        } else {
#pragma unroll
          for (int i = 0; i < VEC; ++i) v[c][i] = 0.f;
        }
      }
      if constexpr (PHASE != kApply) {
#pragma unroll
        for (int c = 0; c < Cfg::CHUNKS; ++c)
#pragma unroll
          for (int i = 0; i < VEC; ++i) ss = fmaf(v[c][i], v[c][i], ss);
        ss = group_reduce<SumOp, RPB, TPR, Cfg::RED>(ss, red);
      }
      if constexpr (PHASE == kCluster) {
        // One block per segment: the cluster's partial sums meet in
        // distributed shared memory.
        __shared__ float cluster_ss;
        if (threadIdx.x == 0) cluster_ss = ss;
        cluster_sync();
        ss = 0.f;
        for (int r = 0; r < a.split; ++r) ss += load_peer(&cluster_ss, r);
        cluster_sync();  // no block leaves while a peer still reads its slot
      }
      if constexpr (PHASE == kStats) {
        if (lane == 0 && len > 0) a.ws[s.vrow] = ss;
      } else {
        const float scale = row_scale(PHASE == kApply ? combined_partials() : ss);
#pragma unroll
        for (int c = 0; c < Cfg::CHUNKS; ++c) {
          const long long idx = static_cast<long long>(c * TPR + lane) * VEC;
          if (idx < len) {
            float wv[VEC], o[VEC];
            load_vec<T, VEC, kCacheDefault>(w + idx, wv);
#pragma unroll
            for (int i = 0; i < VEC; ++i) o[i] = v[c][i] * scale * wv[i];
            store_vec<T, VEC, Cfg::CACHE>(y + idx, o);
          }
        }
      }
    } else {
      constexpr long long kStep = static_cast<long long>(Cfg::SPAN) * Cfg::UNROLL;
      float ss = 0.f;
      if constexpr (PHASE != kApply) {
        for_each_row_vector<T, VEC, Cfg::CACHE, Cfg::SPAN, Cfg::UNROLL>(
            x, len, lane, [&](int, long long, const float(&v)[VEC]) {
#pragma unroll
              for (int i = 0; i < VEC; ++i) ss = fmaf(v[i], v[i], ss);
            });
        ss = group_reduce<SumOp, RPB, TPR, Cfg::RED>(ss, red);
      }
      if constexpr (PHASE == kStats) {
        if (lane == 0 && len > 0) a.ws[s.vrow] = ss;
      } else {
        const float scale = row_scale(PHASE == kApply ? combined_partials() : ss);
        for (long long base = static_cast<long long>(lane) * VEC; base < len; base += kStep) {
          float v[Cfg::UNROLL][VEC], wv[Cfg::UNROLL][VEC];
#pragma unroll
          for (int u = 0; u < Cfg::UNROLL; ++u) {
            if (base + u * Cfg::SPAN < len) {
              load_vec<T, VEC, Cfg::CACHE>(x + base + u * Cfg::SPAN, v[u]);
              load_vec<T, VEC, kCacheDefault>(w + base + u * Cfg::SPAN, wv[u]);
            }
          }
#pragma unroll
          for (int u = 0; u < Cfg::UNROLL; ++u) {
            if (base + u * Cfg::SPAN < len) {
              float o[VEC];
#pragma unroll
              for (int i = 0; i < VEC; ++i) o[i] = v[u][i] * scale * wv[u][i];
              store_vec<T, VEC, Cfg::CACHE>(y + base + u * Cfg::SPAN, o);
            }
          }
        }
      }
    }
  });
}

}  // namespace ktune_rw
