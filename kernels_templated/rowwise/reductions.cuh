// Row-wise device code: reductions. The online max-sum pair and fast
// exponentials, warp and group reductions, thread-block cluster reductions
// through distributed shared memory, and rows shared by the blocks of a
// cooperative grid (partials through global memory).
#pragma once

#include "kernels_templated/rowwise/args.h"
#include "kernels_templated/rowwise/elements.cuh"

namespace ktune_rw {

// ---- values that reductions combine

/// Running maximum and sum of exp(x - m): the online log-sum-exp state.
struct MaxSum {
  float m;
  float s;
};

constexpr float kLog2e = 1.4426950408889634f;
/// 2^x in one MUFU.EX2 (flushes subnormal results to zero; exp2f adds range
/// fix-ups around it that softmax does not need).
__device__ __forceinline__ float exp2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float fast_exp(float x) { return exp2_ftz(x * kLog2e); }
/// exp(x - m) as 2^((x - m) log2(e)): the difference first, so that large
/// logits keep their digits (x log2(e) - m log2(e) at |x| = 6e4 carries
/// m log2(e)'s rounding, ulp(8.7e4) = 0.008, into a 0.3% error). A row whose
/// maximum so far is -inf must not reach here: -inf - -inf is NaN.
__device__ __forceinline__ float exp_shifted(float x, float m) {
  return exp2_ftz((x - m) * kLog2e);
}
/// exp(x - m) / s as 2^((x - m) log2(e) - log2(s)): the division folded in.
__device__ __forceinline__ float exp_shifted_scaled(float x, float m, float log2_s) {
  return exp2_ftz(fmaf(x - m, kLog2e, -log2_s));
}
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

struct SumOp {
  __device__ static float identity() { return 0.f; }
  __device__ static float combine(float a, float b) { return a + b; }
};
struct MaxOp {
  __device__ static float identity() { return neg_inf(); }
  __device__ static float combine(float a, float b) { return fmaxf(a, b); }
};
struct MaxSumOp {
  __device__ static MaxSum identity() { return MaxSum{neg_inf(), 0.f}; }
  // An empty side (m = -inf) must not turn the other into NaN (-inf - -inf).
  __device__ static MaxSum combine(MaxSum a, MaxSum b) {
    if (a.m == neg_inf()) return b;
    if (b.m == neg_inf()) return a;
    float m = fmaxf(a.m, b.m);
    return MaxSum{m, a.s * fast_exp(a.m - m) + b.s * fast_exp(b.m - m)};
  }
};
template <int OP>
struct OpOf;
template <>
struct OpOf<kOpSum> {
  using type = SumOp;
};
template <>
struct OpOf<kOpMax> {
  using type = MaxOp;
};

__device__ __forceinline__ float shfl_xor(float v, int lane_mask) {
  return __shfl_xor_sync(0xffffffffu, v, lane_mask);
}
__device__ __forceinline__ MaxSum shfl_xor(MaxSum v, int lane_mask) {
  return MaxSum{__shfl_xor_sync(0xffffffffu, v.m, lane_mask),
                __shfl_xor_sync(0xffffffffu, v.s, lane_mask)};
}

/// Butterfly over aligned groups of WIDTH lanes (WIDTH <= 32, a power of two):
/// every lane of the group ends with the group's total. All 32 lanes must call.
template <int WIDTH, typename Op, typename V>
__device__ __forceinline__ V warp_reduce(V v) {
#pragma unroll
  for (int o = WIDTH / 2; o > 0; o >>= 1) v = Op::combine(v, shfl_xor(v, o));
  return v;
}

/// Shared storage for group_reduce: RPB groups of TPR threads.
template <typename V, int RPB, int TPR, int RED>
struct ReduceStorage {
  static constexpr int kWarpsPerGroup = TPR > 32 ? TPR / 32 : 1;
  static constexpr int kSlots = RED == kSmem ? RPB * TPR : (TPR > 32 ? RPB * kWarpsPerGroup : 1);
  V slot[kSlots];
};

/// Reduces v over each group of TPR consecutive threads; every thread gets its
/// group's total. Shuffle mode: warp butterfly, then one partial per warp
/// through shared memory. Shared-memory mode: a tree over all TPR values in
/// shared memory. Must be reached by every thread of the block (it may sync).
template <typename Op, int RPB, int TPR, int RED, typename V>
__device__ __forceinline__ V group_reduce(V v, ReduceStorage<V, RPB, TPR, RED>& st) {
  const int tid = threadIdx.x;
  if constexpr (RED == kShuffle) {
    if constexpr (TPR <= 32) {
      return warp_reduce<TPR, Op>(v);
    } else {
      constexpr int kW = TPR / 32;
      v = warp_reduce<32, Op>(v);
      const int group = tid / TPR;
      const int warp_in_group = (tid % TPR) / 32;
      if ((tid & 31) == 0) st.slot[group * kW + warp_in_group] = v;
      __syncthreads();
      V total = st.slot[group * kW];
#pragma unroll
      for (int i = 1; i < kW; ++i) total = Op::combine(total, st.slot[group * kW + i]);
      __syncthreads();  // the slots are reused by the next reduction
      return total;
    }
  } else {
    const int base = (tid / TPR) * TPR;
    const int lane = tid % TPR;
    st.slot[tid] = v;
    __syncthreads();
#pragma unroll
    for (int half = TPR / 2; half > 0; half >>= 1) {
      if (lane < half) st.slot[tid] = Op::combine(st.slot[tid], st.slot[tid + half]);
      __syncthreads();
    }
    V total = st.slot[base];
    __syncthreads();
    return total;
  }
}

// ---- thread-block clusters (sm_90): partials through distributed shared memory

/// barrier.cluster arrive (release) + wait (acquire): every thread of every
/// block of the cluster must reach it, uniformly.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

/// Reads a float at the same shared-memory offset as `local` in block `rank`
/// of this cluster.
__device__ __forceinline__ float load_peer(const float* local, unsigned rank) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(local));
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
  return v;
}

/// A value's words in a cluster slot, and a peer's value read back.
__device__ __forceinline__ void publish(float (&slot)[2], float v) { slot[0] = v; }
__device__ __forceinline__ void publish(float (&slot)[2], MaxSum v) {
  slot[0] = v.m, slot[1] = v.s;
}
__device__ __forceinline__ void peer_value(float (&slot)[2], unsigned rank, float& v) {
  v = load_peer(&slot[0], rank);
}
__device__ __forceinline__ void peer_value(float (&slot)[2], unsigned rank, MaxSum& v) {
  v.m = load_peer(&slot[0], rank);
  v.s = load_peer(&slot[1], rank);
}

/// Combines v over the `size` (<= 32) blocks of this thread-block cluster.
/// Thread 0 publishes the block's value in shared memory; after the barrier,
/// lane r of every warp reads block r's value through distributed shared
/// memory (one round trip for all peers, not `size` in a row) and a warp
/// butterfly combines them: the same tree over the same values in every warp
/// of every block, so every block gets the same bits. Every thread of the
/// block must call it (whole warps). `parity` alternates between consecutive
/// calls: a slot is rewritten only two calls later, after a barrier that
/// every peer reached once its reads of it were done, so one barrier per call
/// suffices. The kernel must reach cluster_sync() once more before it exits:
/// no block may leave while a peer still reads its slot.
template <typename Op, typename V>
__device__ __forceinline__ V cluster_reduce(V v, int size, int parity) {
  __shared__ float slot[2][2];
  if (threadIdx.x == 0) publish(slot[parity], v);
  cluster_sync();
  const int lane = static_cast<int>(threadIdx.x & 31);
  V peer = Op::identity();
  if (lane < size) peer_value(slot[parity], static_cast<unsigned>(lane), peer);
  return warp_reduce<32, Op>(peer);
}

// ---- rows shared by the blocks of a cooperative grid: partials through global memory

/// A reduction value's words in the workspace (float: 1; MaxSum: m, s).
__device__ __forceinline__ void store_words(float* p, float v) { p[0] = v; }
__device__ __forceinline__ void store_words(float* p, MaxSum v) { p[0] = v.m, p[1] = v.s; }
/// Reads a word another block wrote: at gpu scope, so never a stale L1 line.
__device__ __forceinline__ float load_relaxed_gpu(const float* p) {
  float v;
  asm volatile("ld.relaxed.gpu.global.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void load_words(const float* p, float& v) { v = load_relaxed_gpu(p); }
__device__ __forceinline__ void load_words(const float* p, MaxSum& v) {
  v.m = load_relaxed_gpu(p);
  v.s = load_relaxed_gpu(p + 1);
}
/// Adds one to a counter; release: this thread's earlier stores are visible
/// to whoever acquires the count.
__device__ __forceinline__ unsigned arrive_release_gpu(unsigned* counter) {
  unsigned old;
  asm volatile("atom.add.release.gpu.global.u32 %0, [%1], 1;"
               : "=r"(old)
               : "l"(counter)
               : "memory");
  return old;
}
__device__ __forceinline__ unsigned load_acquire_gpu(const unsigned* counter) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
  return v;
}

/// Combines v over the a.split segments of row s.row, each held by a block
/// of a cooperative grid (PHASE kLinked): every block must be resident, which
/// the cooperative launch guarantees, or the wait below never ends.
/// Thread 0 writes the block's partial to the row's workspace slot, counts
/// itself in on the row's counter (release) and waits for the count to reach
/// split (acquire); after the block barrier, lane r of every warp reads
/// segment r's partial and a warp butterfly combines them (the same bits in
/// every block, as cluster_reduce). The counter is left at zero for the next
/// launch: each thread 0 counts itself in a second time once past its wait,
/// and the last of those 2 * split arrivals (no block still waits) clears it.
/// Every thread of the block must call it; split <= 32.
template <typename Op, typename V>
__device__ __forceinline__ V linked_reduce(V v, const RowwiseArgs& a, long long row,
                                           long long vrow) {
  constexpr int kWords = sizeof(V) / sizeof(float);
  float* partials = a.ws + kWords * row * a.split;
  unsigned* counter = a.counters + row;
  if (threadIdx.x == 0) {
    store_words(partials + kWords * (vrow & (a.split - 1)), v);
    arrive_release_gpu(counter);
    while (load_acquire_gpu(counter) < static_cast<unsigned>(a.split)) {
    }
    if (atomicAdd(counter, 1u) == static_cast<unsigned>(2 * a.split - 1)) atomicExch(counter, 0u);
  }
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x & 31);
  V peer = Op::identity();
  if (lane < a.split) load_words(partials + kWords * lane, peer);
  return warp_reduce<32, Op>(peer);
}

}  // namespace ktune_rw
