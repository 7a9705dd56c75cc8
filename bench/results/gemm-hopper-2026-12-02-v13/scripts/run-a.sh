#!/usr/bin/env bash
# Run A (gemm v13): the first real test of v12's descriptor variants. Until ktune's compiler passed
# --no-source-include, a variant folder in KTUNE_KERNEL_DIR was ignored in favour of the repository's
# kernels_templated (NVRTC searched the working directory first), so run J's "hoisted descriptors" timed and
# profiled main. Here: main, v12's hoisted_descriptors (64-bit descriptors computed once, warpgroup index
# broadcast from lane 0) and v13's desc32 (32-bit low words added to, the constant high word OR-ed at the
# wgmma), in turns, twice, on run J's six shapes; each run's winner verified. Then the SASS of the three
# (nvcc cubins of the 512x4096x4096 tile, make-cubins.sh).
source "$(dirname "$0")/common.sh"
cases() {
  bench $1 $2-512x4096x4096 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 true false 6 128 true 16)"
  bench $1 $2-512x4096x11008 "$(nt 512 4096 11008)" "$(v9_wgk 128 128 1 1 true false 7 64 false 4)"
  bench $1 $2-128x4096x4096 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)"
  bench $1 $2-8192x4096x4096 "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  bench $1 $2-4096x4096x4096 "$(nt 4096 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 8)"
  bench $1 $2-2048x11008x4096 "$(nt 2048 11008 4096)" "$(v9_wgk 128 168 1 1 true false 5 64 true 8)"
}
for v in main hoisted_descriptors desc32; do sass_of $v; done
in_turns cases main hoisted_descriptors desc32 || exit 1
gpu_state
