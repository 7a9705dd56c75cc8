// Sum / max reductions, fp32 accumulation, output in the input dtype.
// axis=last: reduce_rows_kernel gives one value per row (split rows write
// fp32 partials to ws and reduce_rows_finish combines them).
// axis=rows: reduce_cols_kernel reduces a rows x cols matrix over its rows,
// one value per column (row slices write partials, reduce_cols_finish sums).
#pragma once

#include "kernels_templated/rowwise/common.cuh"

namespace ktune_rw {

/// PHASE kFused writes y[row]; kStats writes ws[row * split + segment].
template <typename Cfg, int OP, int PHASE>
__global__ void __launch_bounds__(Cfg::THREADS) reduce_rows_kernel(RowwiseArgs a) {
  using T = typename Cfg::T;
  using Op = typename OpOf<OP>::type;
  constexpr int VEC = Cfg::VEC, TPR = Cfg::TPR, RPB = Cfg::RPB;
  __shared__ ReduceStorage<float, RPB, TPR, Cfg::RED> red;
  const int lane = threadIdx.x % TPR;

  for_each_segment<Cfg>(a, [&](const Segment s) {
    const T* x = static_cast<const T*>(a.x) + s.row * a.cols + s.col0;
    const long long len = s.len;
    // UNROLL independent accumulators keep the adds off one dependency chain.
    float acc[Cfg::UNROLL];
#pragma unroll
    for (int u = 0; u < Cfg::UNROLL; ++u) acc[u] = Op::identity();
    for_each_row_vector<T, VEC, Cfg::CACHE, Cfg::SPAN, Cfg::UNROLL>(
        x, len, lane, [&](int u, long long, const float(&v)[VEC]) {
#pragma unroll
          for (int i = 0; i < VEC; ++i) acc[u] = Op::combine(acc[u], v[i]);
        });
    float total = acc[0];
#pragma unroll
    for (int u = 1; u < Cfg::UNROLL; ++u) total = Op::combine(total, acc[u]);
    total = group_reduce<Op, RPB, TPR, Cfg::RED>(total, red);
    if (lane == 0 && len > 0) {
      if constexpr (PHASE == kStats)
        a.ws[s.vrow] = total;
      else
        store_one(static_cast<T*>(a.y) + s.row, total);
    }
  });
}

/// One thread per row combines the row's `split` partials.
template <typename T, int OP>
__global__ void __launch_bounds__(256) reduce_rows_finish(RowwiseArgs a) {
  using Op = typename OpOf<OP>::type;
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= a.rows) return;
  float total = Op::identity();
  for (int k = 0; k < a.split; ++k) total = Op::combine(total, a.ws[row * a.split + k]);
  store_one(static_cast<T*>(a.y) + row, total);
}

/// Column reduction: a block is TX threads across columns (VEC columns each)
/// by TY threads down the rows; grid.y = split row slices. Each thread keeps
/// VEC column accumulators over rows ty, ty+TY*split, ...; UNROLL rows are
/// loaded before they are used. The TY partials meet in shared memory.
template <typename T, int OP, int TX, int TY, int VEC, int CACHE, int UNROLL>
__global__ void __launch_bounds__(TX * TY) reduce_cols_kernel(RowwiseArgs a) {
  using Op = typename OpOf<OP>::type;
  static_assert(TX * TY <= 1024 && (TX * TY) % 32 == 0, "block of whole warps, at most 1024 threads");
  __shared__ float part[TY > 1 ? TY : 1][TX * VEC];
  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
  const long long col = (static_cast<long long>(blockIdx.x) * TX + tx) * VEC;
  const bool active = col < a.cols;
  float acc[VEC];
#pragma unroll
  for (int i = 0; i < VEC; ++i) acc[i] = Op::identity();
  const long long row_step = static_cast<long long>(TY) * gridDim.y;
  if (active) {
    const T* x = static_cast<const T*>(a.x) + col;
    for (long long r = static_cast<long long>(blockIdx.y) * TY + ty; r < a.rows; r += row_step * UNROLL) {
      float v[UNROLL][VEC];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (r + u * row_step < a.rows) load_vec<T, VEC, CACHE>(x + (r + u * row_step) * a.cols, v[u]);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (r + u * row_step < a.rows)
#pragma unroll
          for (int i = 0; i < VEC; ++i) acc[i] = Op::combine(acc[i], v[u][i]);
    }
  }
  if constexpr (TY > 1) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) part[ty][tx * VEC + i] = acc[i];
    __syncthreads();
    if (ty != 0) return;
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      float t = part[0][tx * VEC + i];
      for (int j = 1; j < TY; ++j) t = Op::combine(t, part[j][tx * VEC + i]);
      acc[i] = t;
    }
  }
  if (!active) return;
  if (gridDim.y == 1) {
    store_vec<T, VEC, kCacheDefault>(static_cast<T*>(a.y) + col, acc);
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) a.ws[blockIdx.y * a.cols + col + i] = acc[i];
  }
}

/// One thread per column combines the split row slices' partials.
template <typename T, int OP>
__global__ void __launch_bounds__(256) reduce_cols_finish(RowwiseArgs a) {
  using Op = typename OpOf<OP>::type;
  const long long col = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= a.cols) return;
  float total = Op::identity();
  for (int k = 0; k < a.split; ++k) total = Op::combine(total, a.ws[k * a.cols + col]);
  store_one(static_cast<T*>(a.y) + col, total);
}

}  // namespace ktune_rw
