// Row-wise device code: loads. Raw 2- to 16-byte global loads with a cache
// policy (inline PTX), widening to floats, loads from shared memory, the
// packed maximum of raw accesses, and the walk over one thread's share of a row.
#pragma once

#include "kernels_templated/rowwise/elements.cuh"

namespace ktune_rw {

// ---- raw loads: 2, 4, 8 or 16 bytes with a cache policy (inline PTX, so
// the policy reaches SASS whatever the compiler would have chosen)

#define KTUNE_RW_LOAD_VARIANTS(OP)                  \
  if constexpr (CACHE == kCacheNc) {                \
    OP("ld.global.nc");                             \
  } else if constexpr (CACHE == kCacheNcNoAlloc) {  \
    OP("ld.global.nc.L1::no_allocate");             \
  } else if constexpr (CACHE == kCacheEvictFirst) { \
    OP("ld.global.cs");                             \
  } else if constexpr (CACHE == kCacheL2Prefetch) { \
    OP("ld.global.nc.L2::256B");                    \
  } else {                                          \
    OP("ld.global");                                \
  }

template <int CACHE>
__device__ __forceinline__ void ld16(const void* p, unsigned (&w)[4]) {
#define KTUNE_RW_OP(INS)                                        \
  asm volatile(INS ".v4.u32 {%0,%1,%2,%3}, [%4];"               \
               : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) \
               : "l"(p))
  KTUNE_RW_LOAD_VARIANTS(KTUNE_RW_OP)
#undef KTUNE_RW_OP
}
template <int CACHE>
__device__ __forceinline__ void ld8(const void* p, unsigned (&w)[2]) {
#define KTUNE_RW_OP(INS) \
  asm volatile(INS ".v2.u32 {%0,%1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p))
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
    for (int i = 0; i < VEC; ++i)
      out[i] = Elem<T>::to_float((w[i / 2] >> (16 * (i % 2))) & 0xffffu);
  }
}

template <typename T, int VEC>
struct VecBytes {
  static constexpr int kBytes = VEC * static_cast<int>(sizeof(T));
  static_assert(kBytes == 2 || kBytes == 4 || kBytes == 8 || kBytes == 16,
                "vector access of 2..16 bytes");
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
__device__ __forceinline__ void load_raw_shared_at(unsigned addr,
                                                   unsigned (&w)[VecBytes<T, VEC>::kWords]) {
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

/// Walks one thread's share of a row of `len` elements: each step loads
/// UNROLL vectors of VEC elements, SPAN elements apart, all before any is used
/// (independent loads in flight), then calls visit(u, offset, v) for each one
/// inside the row (u: the unroll slot, for per-slot accumulators; offset: the
/// vector's first element). Every row-wise kernel reads its rows through this.
template <typename T, int VEC, int CACHE, int SPAN, int UNROLL, typename Visit>
__device__ __forceinline__ void for_each_row_vector(const T* x, long long len, int lane,
                                                    Visit&& visit) {
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

}  // namespace ktune_rw
