// Row-wise device code: stores. VEC floats narrowed to the element type in
// one access (streaming stores for evict-first), and one scalar store.
#pragma once

#include "kernels_templated/rowwise/elements.cuh"
#include "kernels_templated/rowwise/loads.cuh"

namespace ktune_rw {

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
      asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(w[0]), "r"(w[1]),
                   "r"(w[2]), "r"(w[3])
                   : "memory");
    else
      asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(w[0]), "r"(w[1]),
                   "r"(w[2]), "r"(w[3])
                   : "memory");
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

}  // namespace ktune_rw
