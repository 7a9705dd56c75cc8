#!/usr/bin/env bash
# Run D (gemm v13): run C's no_epilogue was 2-6% faster than main on every shape. Where the epilogue's time
# goes: no_global_stores stages C through shared memory and reads the staged segments back, but does not
# store them (timed, not verified); against main and no_epilogue, in turns, twice, on the five staged shapes.
source "$(dirname "$0")/common.sh"
cases() {
  staged_cases $1 $2
}
in_turns cases main no_global_stores no_epilogue || exit 1
gpu_state
