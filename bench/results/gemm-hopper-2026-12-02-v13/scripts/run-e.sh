#!/usr/bin/env bash
# Run E (gemm v13): run D put the cost of the epilogue at 2-6% and of its global stores at 1-2%. Main now
# lets interior staged rows leave as asynchronous bulk copies (cp.async.bulk, lanes 0-15, one row each) from an
# unswizzled, padded staging buffer; warp_stores is c9fe4a4's epilogue (the warp loads the staged segments
# and stores them). In turns, twice, on run D's five shapes plus 512x4096x11008 (unstaged: a control); each
# run's winner verified.
source "$(dirname "$0")/common.sh"
cases() {
  staged_cases $1 $2
  bench $1 $2-512x4096x11008 "$(nt 512 4096 11008)" "$(v9_wgk 128 128 1 1 true false 7 64 false 4)"
}
in_turns cases main warp_stores || exit 1
gpu_state
