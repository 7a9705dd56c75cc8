#!/usr/bin/env bash
# Run F (gemm v13): run E's bulk copies lost 2-6% (each pass waits until the copies have read the buffer),
# so the epilogue keeps its warp stores. stmatrix_staging writes 16-bit C into the (unchanged, swizzled)
# staging buffer with stmatrix, four 8x8 matrices per instruction, instead of one 4-byte store per lane per
# n8 slice and row half. In turns with main, twice, on run E's six shapes; each run's winner verified.
source "$(dirname "$0")/common.sh"
cases() {
  staged_cases $1 $2
  bench $1 $2-512x4096x11008 "$(nt 512 4096 11008)" "$(v9_wgk 128 168 1 1 true false 5 64 true 8)"
}
in_turns cases main stmatrix_staging || exit 1
gpu_state
