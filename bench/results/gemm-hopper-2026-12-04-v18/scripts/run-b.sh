#!/usr/bin/env bash
# Run B (gemm v18): where the mma.sync kernel's time goes per tile. K scaling at M = N = 4096 (K = 1024 ... 8192)
# for the 128x256 winner without and with PERSISTENT, in turns with cuBLAS; then variants/staged_epilogue.patch
# (C through shared memory, 16-byte row segments) against main in turns, twice, at 4096^3 and 8192^3.
source "$(dirname "$0")/common.sh"
for k in 1024 2048 4096 8192; do
  turns_case k$k "$(nn 4096 4096 $k)" "$(tcp 128 256 64 64 64 3 1 false)" "$(tcp 128 256 64 64 64 3 1 true)"
done
epilogue_cases() {
  bench $1 $2-4096 "$(nn 4096 4096 4096)" "$(tcp 128 256 64 64 64 3 1 false)"
  bench $1 $2-8192 "$(nn 8192 8192 8192)" "$(tcp 128 256 64 64 64 3 16 false)"
}
in_turns epilogue_cases main staged_epilogue
gpu_state
