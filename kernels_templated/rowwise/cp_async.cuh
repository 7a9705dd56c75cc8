// Row-wise device code: cp.async copies from global to shared memory, their
// commit groups and waits (sm_80+).
#pragma once

#include "kernels_templated/rowwise/elements.cuh"

namespace ktune_rw {

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
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(s), "l"(gmem)
                 : "memory");
  else if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(s), "l"(gmem), "n"(BYTES)
                 : "memory");
}
/// Closes this thread's cp.async copies issued since the last commit into one group.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
/// Waits for this thread's cp.async copies; they are then visible to it.
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}
/// Waits until at most `n` of this thread's committed groups are still in
/// flight (the older ones have landed). wait_group takes an immediate, so n
/// above 7 waits as for 7: more than needed, never less.
__device__ __forceinline__ void cp_async_wait_pending(long long n) {
  switch (n <= 0 ? 0 : (n >= 7 ? 7 : static_cast<int>(n))) {
    case 0:
      asm volatile("cp.async.wait_group 0;" ::: "memory");
      break;
    case 1:
      asm volatile("cp.async.wait_group 1;" ::: "memory");
      break;
    case 2:
      asm volatile("cp.async.wait_group 2;" ::: "memory");
      break;
    case 3:
      asm volatile("cp.async.wait_group 3;" ::: "memory");
      break;
    case 4:
      asm volatile("cp.async.wait_group 4;" ::: "memory");
      break;
    case 5:
      asm volatile("cp.async.wait_group 5;" ::: "memory");
      break;
    case 6:
      asm volatile("cp.async.wait_group 6;" ::: "memory");
      break;
    default:
      asm volatile("cp.async.wait_group 7;" ::: "memory");
      break;
  }
}

}  // namespace ktune_rw
