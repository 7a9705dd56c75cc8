#!/usr/bin/env bash
# Run I (gemm v18): run B's K scaling (M = N = 4096, K = 1024 ... 8192) again on the final code, for the 4096^3
# database winner (256x128x64, 3 stages, GROUP_M 8) with and without STAGE_C, in turns with cuBLAS: the intercept
# that staging leaves.
source "$(dirname "$0")/common.sh"
for k in 1024 2048 4096 8192; do
  turns_case i$k "$(nn 4096 4096 $k)" "$(tcs 256 128 64 64 64 3 8 false)" "$(tcs 256 128 64 64 64 3 8 true)"
done
gpu_state
