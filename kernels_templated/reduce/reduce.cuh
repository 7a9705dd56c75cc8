// Sum / max reductions, fp32 accumulation, output in the input dtype.
// axis=last: reduce_rows_kernel gives one value per row (split rows write
// fp32 partials to ws and reduce_rows_finish combines them).
// axis=rows: reduce_cols_kernel reduces a rows x cols matrix over its rows,
// one value per column (row slices write partials; the last slice of a
// column group to finish combines them).
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

/// Sums (or maxes) over the TY rows of the block: every thread (tx, ty) gives
/// VEC column values; threads with ty == 0 get the block's values back.
template <typename Op, int TX, int TY, int VEC>
__device__ __forceinline__ void combine_down(float (&acc)[VEC], float (&part)[TY > 1 ? TY : 1][TX * VEC], int tx, int ty) {
  if constexpr (TY > 1) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) part[ty][tx * VEC + i] = acc[i];
    __syncthreads();
    if (ty == 0) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        float t = part[0][tx * VEC + i];
        for (int j = 1; j < TY; ++j) t = Op::combine(t, part[j][tx * VEC + i]);
        acc[i] = t;
      }
    }
    __syncthreads();  // part is reused by a second combine
  }
}

/// Column reduction: a block is TX threads across columns (VEC columns each)
/// by TY threads down the rows; grid.y = split row slices. Each thread keeps
/// VEC column accumulators over rows ty, ty+TY*split, ...; UNROLL rows are
/// loaded before they are used. The TY partials meet in shared memory. With
/// split > 1 every slice writes its partials to ws and the last slice to
/// finish a column group (counted in a.counters, which it resets) combines
/// them: one launch, no second kernel.
template <typename T, int OP, int TX, int TY, int VEC, int CACHE, int UNROLL>
__global__ void __launch_bounds__(TX * TY) reduce_cols_kernel(RowwiseArgs a) {
  using Op = typename OpOf<OP>::type;
  static_assert(TX * TY <= 1024 && (TX * TY) % 32 == 0, "block of whole warps, at most 1024 threads");
  __shared__ float part[TY > 1 ? TY : 1][TX * VEC];
  __shared__ bool last_slice;
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
  combine_down<Op, TX, TY, VEC>(acc, part, tx, ty);
  if (gridDim.y == 1) {
    if (ty == 0 && active) store_vec<T, VEC, kCacheDefault>(static_cast<T*>(a.y) + col, acc);
    return;
  }
  if (ty == 0 && active) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) a.ws[blockIdx.y * a.cols + col + i] = acc[i];
  }
  // Publish the partials device-wide, then count this slice in.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last_slice = atomicAdd(&a.counters[blockIdx.x], 1u) == gridDim.y - 1;
  __syncthreads();
  if (!last_slice) return;
  __threadfence();  // the other slices' partials, counted before ours, are visible
#pragma unroll
  for (int i = 0; i < VEC; ++i) acc[i] = Op::identity();
  if (active)
    for (int k = ty; k < static_cast<int>(gridDim.y); k += TY)
#pragma unroll
      for (int i = 0; i < VEC; ++i) acc[i] = Op::combine(acc[i], __ldcg(a.ws + k * a.cols + col + i));
  combine_down<Op, TX, TY, VEC>(acc, part, tx, ty);
  if (ty == 0 && active) store_vec<T, VEC, kCacheDefault>(static_cast<T*>(a.y) + col, acc);
  if (threadIdx.x == 0) a.counters[blockIdx.x] = 0;  // every slice has counted: ready for the next launch
}

}  // namespace ktune_rw
