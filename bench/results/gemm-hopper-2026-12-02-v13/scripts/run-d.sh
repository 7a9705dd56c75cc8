#!/usr/bin/env bash
# Run D (gemm v13): run C's no_epilogue was 2-6% faster than main on every shape. Where the epilogue's time
# goes: no_global_stores stages C through shared memory and reads the staged segments back, but does not
# store them (timed, not verified); against main and no_epilogue, in turns, twice, on the five staged shapes.
source "$(dirname "$0")/common.sh"
cases() {
  bench $1 $2-512x4096x4096 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 true false 6 128 true 16)"
  bench $1 $2-128x4096x4096 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 1 1 false false 12 64 true 16)"
  bench $1 $2-8192x4096x4096 "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  bench $1 $2-4096x4096x4096 "$(nt 4096 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 8)"
  bench $1 $2-2048x11008x4096 "$(nt 2048 11008 4096)" "$(v9_wgk 128 168 1 1 true false 5 64 true 8)"
}
in_turns cases main no_global_stores no_epilogue || exit 1
gpu_state
