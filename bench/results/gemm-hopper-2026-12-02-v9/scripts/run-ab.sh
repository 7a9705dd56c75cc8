#!/usr/bin/env bash
# Run AB: bench_tma_multicast_probe with every SM at once (66 clusters) on a matrix the L2 holds, so the
# L2-to-SM path is the limit: does a multicast deliver a tile to both blocks in less time than two loads?
# Each configuration twice.
source "$(dirname "$0")/common.sh"
for i in 1 2; do
  for shape in "1024 16384 66" "512 16384 66" "256 32768 66"; do
    $B/bench_tma_multicast_probe $shape | tee -a $OUT/probe-runAB.txt
  done
done
gpu_state
