// Row-wise device code: the knob encodings the descriptor writes into name
// expressions, and element conversion through raw bits (bf16, fp16, fp32).
// NVRTC-safe: no host standard headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ktune_rw {

// ---- knob encodings (the descriptor writes these numbers into name expressions)
enum Reduction { kShuffle = 0, kSmem = 1 };
/// Load cache policy for streamed data: plain; read-only path (ld.global.nc);
/// read-only and no L1 allocation; evict-first (.cs loads and stores);
/// read-only with a 256-byte L2 prefetch hint (whole DRAM bursts per miss).
enum CacheHint {
  kCacheDefault = 0,
  kCacheNc = 1,
  kCacheNcNoAlloc = 2,
  kCacheEvictFirst = 3,
  kCacheL2Prefetch = 4
};
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

template <typename T>
struct Elem;
template <>
struct Elem<float> {
  __device__ static float to_float(unsigned bits) { return __uint_as_float(bits); }
  __device__ static unsigned to_bits(float v) { return __float_as_uint(v); }
};
// pack2(lo, hi): two floats rounded to nearest into one word, lo in the low
// half: one cvt.rn.{bf16,f16}x2.f32 on sm_80+ (the same rounding as two
// single conversions, without the two converts and the merge).
template <>
struct Elem<__nv_bfloat16> {
  // bf16 is the top half of an fp32: widening is a shift.
  static constexpr bool kIsBf16 = true;
  __device__ static float to_float(unsigned bits) { return __uint_as_float(bits << 16); }
  __device__ static unsigned to_bits(float v) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  }
  __device__ static unsigned pack2(float lo, float hi) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
  }
};
template <>
struct Elem<__half> {
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

}  // namespace ktune_rw
