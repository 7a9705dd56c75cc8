#!/usr/bin/env bash
# Run C (gemm v21): run B's two cases whose configuration lists held one that the space refuses (shared memory),
# with valid lists: clusters of four along N at 128x11008x4096 and 128x4096x4096, each case verified and timed
# in turns with cuBLAS, twice; the first configuration is the shipped database's winner.
source "$(dirname "$0")/common.sh"
export TURNS_BENCH=$B/bench_gemm_bench_c4
w() { v9_wgk "$@"; }
for rep in 1 2; do
  turns_case c4-128x11008-$rep "$(nt 128 11008 4096)" "$(w 128 88 1 1 true false 7 64 true 8)" \
    "$(w 128 88 1 4 false false 7 64 true 8)" "$(w 128 96 1 4 false false 6 64 true 8)" \
    "$(w 128 104 1 4 false false 6 64 true 8)" "$(w 128 128 1 4 false false 6 64 true 8)"
  turns_case c4-128x4096-$rep "$(nt 128 4096 4096)" "$(w 64 64 1 1 false false 13 64 true 16)" \
    "$(w 64 64 1 4 false false 13 64 true 16)" "$(w 128 64 1 4 false false 8 64 true 16)" \
    "$(w 128 128 1 4 false false 6 64 true 16)"
done
gpu_state
