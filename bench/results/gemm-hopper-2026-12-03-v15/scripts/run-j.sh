#!/usr/bin/env bash
# Run J (gemm v15): run I found an uncoupled pair (nothing shared) as slow as a coupled one. Is it the tiles a
# cluster's blocks take, or being launched as a cluster? variants/pair_uncoupled_own_tiles.patch is
# pair_uncoupled with each block taking the tiles it would take without a cluster (item = blockIdx.x, stride =
# gridDim.x, no rank offset): only the cluster launch and its two cluster barriers remain. Main, pair_uncoupled
# and pair_uncoupled_own_tiles in turns, twice, on run G's cases.
source "$(dirname "$0")/common.sh"
in_turns pair_cases main pair_uncoupled pair_uncoupled_own_tiles
gpu_state
