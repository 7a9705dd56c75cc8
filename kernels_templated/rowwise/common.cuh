// Device helpers shared by the reduce, softmax and rmsnorm templates: element
// conversion, vector loads/stores with cache hints, warp/group reductions and
// the online log-sum-exp pair. NVRTC-safe: no host standard headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels_templated/rowwise/args.h"

namespace ktune_rw {

// ---- knob encodings (the descriptor writes these numbers into name expressions)
enum Reduction { kShuffle = 0, kSmem = 1 };
/// Load cache policy for streamed data: plain; read-only path (ld.global.nc);
/// read-only and no L1 allocation; evict-first (.cs loads and stores);
/// read-only with a 256-byte L2 prefetch hint (whole DRAM bursts per miss).
enum CacheHint { kCacheDefault = 0, kCacheNc = 1, kCacheNcNoAlloc = 2, kCacheEvictFirst = 3, kCacheL2Prefetch = 4 };
/// RowCfg::CHUNKS value of a segment held in (dynamic) shared memory in the
/// input dtype, filled by cp.async; > 0 counts register-held accesses; 0 streams.
constexpr int kSharedHeld = -1;
enum ReduceOp { kOpSum = 0, kOpMax = 1 };
/// Which part of a split row a kernel does: the whole row; the partial
/// statistics of one segment into RowwiseArgs::ws; the output of one segment
/// from the combined partials; or one segment of a row that a thread-block
/// cluster of RowwiseArgs::split blocks shares (partials meet in distributed
/// shared memory, the segment stays in registers: one read, one write); or
/// one segment of a row whose RowwiseArgs::split blocks run at once in a
/// cooperative persistent grid (partials meet in global memory behind a
/// per-row counter: any number of SMs per row, not one GPC's).
enum Phase { kFused = 0, kStats = 1, kApply = 2, kCluster = 3, kLinked = 4 };

// ---- elements: every dtype converts through its raw bits

template <typename T> struct Elem;
template <> struct Elem<float> {
  __device__ static float to_float(unsigned bits) { return __uint_as_float(bits); }
  __device__ static unsigned to_bits(float v) { return __float_as_uint(v); }
};
// pack2(lo, hi): two floats rounded to nearest into one word, lo in the low
// half: one cvt.rn.{bf16,f16}x2.f32 on sm_80+ (the same rounding as two
// single conversions, without the two converts and the merge).
template <> struct Elem<__nv_bfloat16> {
  // bf16 is the top half of an fp32: widening is a shift.
  static constexpr bool kIsBf16 = true;
  __device__ static float to_float(unsigned bits) { return __uint_as_float(bits << 16); }
  __device__ static unsigned to_bits(float v) { return __bfloat16_as_ushort(__float2bfloat16_rn(v)); }
  __device__ static unsigned pack2(float lo, float hi) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
  }
};
template <> struct Elem<__half> {
  static constexpr bool kIsBf16 = false;
  __device__ static float to_float(unsigned bits) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
  }
  __device__ static unsigned to_bits(float v) { return __half_as_ushort(__float2half_rn(v)); }
  __device__ static unsigned pack2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
  }
};

// ---- raw loads: 2, 4, 8 or 16 bytes with a cache policy (inline PTX, so
// the policy reaches SASS whatever the compiler would have chosen)

#define KTUNE_RW_LOAD_VARIANTS(OP)                                                              \
  if constexpr (CACHE == kCacheNc) { OP("ld.global.nc"); }                                      \
  else if constexpr (CACHE == kCacheNcNoAlloc) { OP("ld.global.nc.L1::no_allocate"); }          \
  else if constexpr (CACHE == kCacheEvictFirst) { OP("ld.global.cs"); }                         \
  else if constexpr (CACHE == kCacheL2Prefetch) { OP("ld.global.nc.L2::256B"); }                \
  else { OP("ld.global"); }

template <int CACHE>
__device__ __forceinline__ void ld16(const void* p, unsigned (&w)[4]) {
#define KTUNE_RW_OP(INS) \
  asm volatile(INS ".v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p))
  KTUNE_RW_LOAD_VARIANTS(KTUNE_RW_OP)
#undef KTUNE_RW_OP
}
template <int CACHE>
__device__ __forceinline__ void ld8(const void* p, unsigned (&w)[2]) {
#define KTUNE_RW_OP(INS) asm volatile(INS ".v2.u32 {%0,%1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p))
  KTUNE_RW_LOAD_VARIANTS(KTUNE_RW_OP)
#undef KTUNE_RW_OP
}
template <int CACHE>
__device__ __forceinline__ unsigned ld4(const void* p) {
  unsigned w;
#define KTUNE_RW_OP(INS) asm volatile(INS ".u32 %0, [%1];" : "=r"(w) : "l"(p))
  KTUNE_RW_LOAD_VARIANTS(KTUNE_RW_OP)
#undef KTUNE_RW_OP
  return w;
}
template <int CACHE>
__device__ __forceinline__ unsigned ld2(const void* p) {
  unsigned short h;
#define KTUNE_RW_OP(INS) asm volatile(INS ".u16 %0, [%1];" : "=h"(h) : "l"(p))
  KTUNE_RW_LOAD_VARIANTS(KTUNE_RW_OP)
#undef KTUNE_RW_OP
  return h;
}
#undef KTUNE_RW_LOAD_VARIANTS

/// Widens the raw words of one VEC-element access of T to floats.
template <typename T, int VEC, int WORDS>
__device__ __forceinline__ void widen(const unsigned (&w)[WORDS], float (&out)[VEC]) {
  if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) out[i] = Elem<T>::to_float(w[i]);
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) out[i] = Elem<T>::to_float((w[i / 2] >> (16 * (i % 2))) & 0xffffu);
  }
}

template <typename T, int VEC>
struct VecBytes {
  static constexpr int kBytes = VEC * static_cast<int>(sizeof(T));
  static_assert(kBytes == 2 || kBytes == 4 || kBytes == 8 || kBytes == 16, "vector access of 2..16 bytes");
  static constexpr int kWords = kBytes >= 4 ? kBytes / 4 : 1;
};

/// Loads VEC consecutive elements of T (one access of VEC*sizeof(T) bytes,
/// which the caller guarantees is aligned) and widens them to float.
template <typename T, int VEC, int CACHE>
__device__ __forceinline__ void load_vec(const T* p, float (&out)[VEC]) {
  constexpr int kBytes = VecBytes<T, VEC>::kBytes;
  unsigned w[VecBytes<T, VEC>::kWords];
  if constexpr (kBytes == 16) {
    ld16<CACHE>(p, reinterpret_cast<unsigned(&)[4]>(w));
  } else if constexpr (kBytes == 8) {
    ld8<CACHE>(p, reinterpret_cast<unsigned(&)[2]>(w));
  } else if constexpr (kBytes == 4) {
    w[0] = ld4<CACHE>(p);
  } else {
    w[0] = ld2<CACHE>(p);
  }
  widen<T, VEC>(w, out);
}

/// Reads VEC elements of T at a 32-bit shared-memory address (one aligned
/// access; load_vec_shared_at widens them to floats): ld.shared takes a
/// 32-bit register, so a walk over a held segment steps one 32-bit offset
/// instead of rebuilding a 64-bit generic address per access. Volatile with a
/// memory clobber: it stays after the cp.async wait that makes its bytes
/// visible and before the cp.async that later refills its slot.
template <typename T, int VEC>
__device__ __forceinline__ void load_raw_shared_at(unsigned addr, unsigned (&w)[VecBytes<T, VEC>::kWords]) {
  constexpr int kBytes = VecBytes<T, VEC>::kBytes;
  if constexpr (kBytes == 16) {
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                 : "r"(addr)
                 : "memory");
  } else if constexpr (kBytes == 8) {
    asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "r"(addr) : "memory");
  } else if constexpr (kBytes == 4) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w[0]) : "r"(addr) : "memory");
  } else {
    unsigned short h;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(h) : "r"(addr) : "memory");
    w[0] = h;
  }
}
template <typename T, int VEC>
__device__ __forceinline__ void load_vec_shared_at(unsigned addr, float (&out)[VEC]) {
  unsigned w[VecBytes<T, VEC>::kWords];
  load_raw_shared_at<T, VEC>(addr, w);
  widen<T, VEC>(w, out);
}

/// The largest element of the first `count` (>= 1) of G raw VEC-element
/// accesses of T. 16-bit types compare packed pairs (max.bf16x2 / max.f16x2
/// on sm_80+: one instruction per two elements, exact, no widening), then
/// widen the last pair; fp32 compares the floats.
template <typename T, int VEC, int G, int WORDS>
__device__ __forceinline__ float max_of_raw(const unsigned (&w)[G][WORDS], int count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(T) == 2 && VEC >= 2) {
    unsigned m = w[0][0];
#pragma unroll
    for (int u = 0; u < G; ++u)
      if (u < count)
#pragma unroll
        for (int k = 0; k < WORDS; ++k) {
          if constexpr (sizeof(T) == 2 && Elem<T>::kIsBf16)
            asm("max.bf16x2 %0, %1, %2;" : "=r"(m) : "r"(m), "r"(w[u][k]));
          else
            asm("max.f16x2 %0, %1, %2;" : "=r"(m) : "r"(m), "r"(w[u][k]));
        }
    return fmaxf(Elem<T>::to_float(m & 0xffffu), Elem<T>::to_float(m >> 16));
  }
#endif
  float t[VEC];
  widen<T, VEC>(w[0], t);
  float m = t[0];
#pragma unroll
  for (int u = 0; u < G; ++u)
    if (u < count) {
      widen<T, VEC>(w[u], t);
#pragma unroll
      for (int i = 0; i < VEC; ++i) m = fmaxf(m, t[i]);
    }
  return m;
}

/// Asynchronous copy of one 4-, 8- or 16-byte access from global to shared
/// memory (cp.async: no registers held while in flight; 16 bytes bypass L1).
/// CACHE carries the streamed input's policy to the 16-byte copies:
/// evict_first marks the lines first to go from L2 (an L2::cache_hint policy:
/// the row is read once), nc_l2_256b asks L2 to fetch whole 256-byte sectors;
/// the other policies copy plainly (.cg already skips L1).
/// `s` is the 32-bit shared-memory address of the destination.
template <int BYTES, int CACHE = kCacheDefault>
__device__ __forceinline__ void cp_async_at(unsigned s, const void* gmem) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (BYTES == 16 && CACHE == kCacheEvictFirst)
    asm volatile(
        "{\n\t.reg .b64 ktune_policy;\n\t"
        "createpolicy.fractional.L2::evict_first.b64 ktune_policy, 1.0;\n\t"
        "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, ktune_policy;\n\t}" ::"r"(s),
        "l"(gmem)
        : "memory");
  else if constexpr (BYTES == 16 && CACHE == kCacheL2Prefetch)
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
  else if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(s), "l"(gmem), "n"(BYTES) : "memory");
}
/// Closes this thread's cp.async copies issued since the last commit into one group.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
/// Waits for this thread's cp.async copies; they are then visible to it.
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
/// Waits until at most `n` of this thread's committed groups are still in
/// flight (the older ones have landed). wait_group takes an immediate, so n
/// above 7 waits as for 7: more than needed, never less.
__device__ __forceinline__ void cp_async_wait_pending(long long n) {
  switch (n <= 0 ? 0 : (n >= 7 ? 7 : static_cast<int>(n))) {
    case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
  }
}

/// Walks one thread's share of a row of `len` elements: each step loads
/// UNROLL vectors of VEC elements, SPAN elements apart, all before any is used
/// (independent loads in flight), then calls visit(u, offset, v) for each one
/// inside the row (u: the unroll slot, for per-slot accumulators; offset: the
/// vector's first element). Every row-wise kernel reads its rows through this.
template <typename T, int VEC, int CACHE, int SPAN, int UNROLL, typename Visit>
__device__ __forceinline__ void for_each_row_vector(const T* x, long long len, int lane, Visit&& visit) {
  constexpr long long kStep = static_cast<long long>(SPAN) * UNROLL;
  for (long long base = static_cast<long long>(lane) * VEC; base < len; base += kStep) {
    float v[UNROLL][VEC];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * SPAN < len) load_vec<T, VEC, CACHE>(x + base + u * SPAN, v[u]);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * SPAN < len) visit(u, base + u * SPAN, v[u]);
  }
}

/// Narrows VEC floats to T and stores them in one access; evict-first uses
/// st.global.cs (the output is not read again by this kernel).
template <typename T, int VEC, int CACHE>
__device__ __forceinline__ void store_vec(T* p, const float (&in)[VEC]) {
  constexpr int kBytes = VecBytes<T, VEC>::kBytes;
  constexpr int kWords = VecBytes<T, VEC>::kWords;
  unsigned w[kWords];
  if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) w[i] = Elem<T>::to_bits(in[i]);
  } else if constexpr (VEC >= 2) {
#pragma unroll
    for (int i = 0; i < VEC / 2; ++i) w[i] = Elem<T>::pack2(in[2 * i], in[2 * i + 1]);
  } else {
    w[0] = Elem<T>::to_bits(in[0]);
  }
  constexpr bool kStreaming = CACHE == kCacheEvictFirst;
  if constexpr (kBytes == 16) {
    if constexpr (kStreaming)
      asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");
    else
      asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");
  } else if constexpr (kBytes == 8) {
    if constexpr (kStreaming)
      asm volatile("st.global.cs.v2.u32 [%0], {%1,%2};" ::"l"(p), "r"(w[0]), "r"(w[1]) : "memory");
    else
      asm volatile("st.global.v2.u32 [%0], {%1,%2};" ::"l"(p), "r"(w[0]), "r"(w[1]) : "memory");
  } else if constexpr (kBytes == 4) {
    if constexpr (kStreaming)
      asm volatile("st.global.cs.u32 [%0], %1;" ::"l"(p), "r"(w[0]) : "memory");
    else
      asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(w[0]) : "memory");
  } else {
    unsigned short h = static_cast<unsigned short>(w[0]);
    if constexpr (kStreaming)
      asm volatile("st.global.cs.u16 [%0], %1;" ::"l"(p), "h"(h) : "memory");
    else
      asm volatile("st.global.u16 [%0], %1;" ::"l"(p), "h"(h) : "memory");
  }
}

/// One scalar store of T (the reductions' outputs).
template <typename T>
__device__ __forceinline__ void store_one(T* p, float v) {
  float one[1] = {v};
  store_vec<T, 1, kCacheDefault>(p, one);
}

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
template <int OP> struct OpOf;
template <> struct OpOf<kOpSum> { using type = SumOp; };
template <> struct OpOf<kOpMax> { using type = MaxOp; };

__device__ __forceinline__ float shfl_xor(float v, int lane_mask) { return __shfl_xor_sync(0xffffffffu, v, lane_mask); }
__device__ __forceinline__ MaxSum shfl_xor(MaxSum v, int lane_mask) {
  return MaxSum{__shfl_xor_sync(0xffffffffu, v.m, lane_mask), __shfl_xor_sync(0xffffffffu, v.s, lane_mask)};
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
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
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
__device__ __forceinline__ void publish(float (&slot)[2], MaxSum v) { slot[0] = v.m, slot[1] = v.s; }
__device__ __forceinline__ void peer_value(float (&slot)[2], unsigned rank, float& v) { v = load_peer(&slot[0], rank); }
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
  asm volatile("atom.add.release.gpu.global.u32 %0, [%1], 1;" : "=r"(old) : "l"(counter) : "memory");
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
__device__ __forceinline__ V linked_reduce(V v, const RowwiseArgs& a, long long row, long long vrow) {
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
template <typename T_, int RPB_, int TPR_, int VEC_, int RED_, int CACHE_, int STRIDE_, int UNROLL_, int CHUNKS_,
          int MINB_ = 0>
struct RowCfg {
  using T = T_;
  static constexpr int RPB = RPB_;        ///< rows (segments) per block
  static constexpr int TPR = TPR_;        ///< threads per row
  static constexpr int VEC = VEC_;        ///< elements per access
  static constexpr int RED = RED_;        ///< Reduction
  static constexpr int CACHE = CACHE_;    ///< CacheHint for the streamed input
  static constexpr int STRIDE = STRIDE_;  ///< 0: one pass; 1: grid-stride loop over rows; 2: persistent (see kPersistent)
  static constexpr int UNROLL = UNROLL_;  ///< accesses in flight per thread in streaming loops
  static constexpr int CHUNKS = CHUNKS_;  ///< >0: held in registers (CHUNKS accesses per thread); kSharedHeld; 0: streamed
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
    cp_async_at<kVecBytes, Cfg::CACHE>(base + static_cast<unsigned>(offset) * sizeof(T), src + offset);
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
            cp_async_at<kVecBytes, Cfg::CACHE>(base + static_cast<unsigned>(i + u * SPAN) * sizeof(T),
                                               x + i + u * SPAN);
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
            load_raw_shared_at<T, VEC>(base + static_cast<unsigned>(i + u * SPAN) * sizeof(T), t[u]);
          f(i, t, G);
        } else {
          const int count = (n - i + SPAN - 1) / SPAN;
#pragma unroll
          for (int u = 0; u < G; ++u)
            if (u < count) load_raw_shared_at<T, VEC>(base + static_cast<unsigned>(i + u * SPAN) * sizeof(T), t[u]);
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
    r.held = reinterpret_cast<T*>(dynamic_smem()) + static_cast<long long>(threadIdx.x / Cfg::TPR) * a.seg_len;
  return r;
}

}  // namespace ktune_rw
