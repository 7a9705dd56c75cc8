#!/usr/bin/env bash
# Run I (gemm v15): is it the pair's coupling or being launched as a cluster? variants/pair_uncoupled.patch loads
# both whole tiles in every block (as pair_without_multicast) and releases each block's stages by its own
# consumers only: a cluster launch with nothing shared. Main, pair_without_multicast and pair_uncoupled in turns,
# twice, on run G's cases. If the uncoupled pairs time like no cluster, the ring coupling costs what the pairs
# lose; if like the coupled ones, the cluster launch (placement, tile-to-SM order) does.
source "$(dirname "$0")/common.sh"
in_turns pair_cases main pair_without_multicast pair_uncoupled
gpu_state
