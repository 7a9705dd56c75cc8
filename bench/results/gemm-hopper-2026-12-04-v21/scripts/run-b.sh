#!/usr/bin/env bash
# Run B (gemm v21): clusters of four blocks along N sharing (multicasting) the A tile, at the M = 128 shapes with
# large N (cuBLAS's choice there, v15 section 5; our A tile is read from the L2 by every block). The kernel text
# allows CLUSTER == 4 (one static_assert), and bench_gemm_bench_c4 is built with the space offering CLUSTER_N = 4
# (variants/cluster4.patch). Each case: every configuration verified, then all of them and cuBLAS in turns,
# twice; the first configuration of each case is the shipped database's winner.
source "$(dirname "$0")/common.sh"
export TURNS_BENCH=$B/bench_gemm_bench_c4
w() { v9_wgk "$@"; }
for rep in 1 2; do
  turns_case c4-128x11008-$rep "$(nt 128 11008 4096)" "$(w 128 88 1 1 true false 7 64 true 8)" \
    "$(w 128 88 1 4 false false 7 64 true 8)" "$(w 128 88 1 4 true false 7 64 true 8)" \
    "$(w 128 96 1 4 false false 7 64 true 8)" "$(w 128 112 1 4 false false 6 64 true 8)" \
    "$(w 128 128 1 4 false false 6 64 true 8)"
  turns_case c4-128x14336-$rep "$(nt 128 14336 4096)" "$(w 128 112 1 1 false false 6 64 true 8)" \
    "$(w 128 112 1 4 false false 6 64 true 8)" "$(w 128 112 1 4 true false 6 64 true 8)" \
    "$(w 128 120 1 4 false false 6 64 true 8)" "$(w 128 128 1 4 false false 6 64 true 8)"
  turns_case c4-128x4096-$rep "$(nt 128 4096 4096)" "$(w 64 64 1 1 false false 13 64 true 16)" \
    "$(w 64 64 1 4 false false 13 64 true 16)" "$(w 128 64 1 4 false false 10 64 true 16)" \
    "$(w 128 128 1 4 false false 6 64 true 16)"
  turns_case c4-512x4096-$rep "$(nt 512 4096 4096)" "$(w 128 128 1 1 true false 6 64 true 8)" \
    "$(w 128 128 1 4 false false 6 64 true 8)" "$(w 128 128 1 4 true false 6 64 true 8)"
done
gpu_state
