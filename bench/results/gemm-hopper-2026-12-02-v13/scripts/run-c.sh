#!/usr/bin/env bash
# Run C (gemm v13): main now builds descriptors as 32-bit low words (run A's desc32). Two of v11/v12's voided
# experiments again, on top of it, in turns with main, twice, on run A's six shapes:
# - stage_k128_v13: ring stages of 128 K-elements (two 64-wide swizzle atoms, half as many stages), v12's
#   run H rebased; its winners verified.
# - no_epilogue: a measurement of what the epilogue costs (v11 run D's "noepi"): C is never written, so its
#   results are timed but fail verification.
source "$(dirname "$0")/common.sh"
cases() {
  staged_cases $1 $2
  bench $1 $2-512x4096x11008 "$(nt 512 4096 11008)" "$(v9_wgk 128 128 1 1 true false 8 64 false 4)"
}
in_turns cases main stage_k128_v13 no_epilogue || exit 1
gpu_state
