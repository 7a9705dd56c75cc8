// probe_bulk.cuh: the shared-memory and bulk-copy (TMA) steps the one-file
// GPU probes in bench/ share: a shared-memory address, an mbarrier's setup, a
// bulk copy into shared memory whose bytes the barrier counts, and the wait
// for a barrier's phase. sm_90 (cp.async.bulk).
#pragma once

namespace ktune::probe {

/// The shared-memory address of a pointer into shared memory.
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Initializes the mbarrier at `bar` for one arrival per phase.
__device__ __forceinline__ void init_barrier(unsigned bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar) : "memory");
}

/// Makes initialized mbarriers visible to the TMA unit (the async proxy).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/// Copies `bytes` from global `src` to shared `dst` with one cp.async.bulk;
/// the mbarrier at `bar` expects them and completes its phase when they land.
__device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes,
                                          unsigned bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(dst),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
}

/// Waits until the mbarrier at `bar` has completed the phase of `parity`.
__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred done;\n"
      "wait:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

}  // namespace ktune::probe
