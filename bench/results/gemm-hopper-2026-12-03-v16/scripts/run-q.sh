#!/usr/bin/env bash
# Run Q (gemm v16): what does running between other kernels cost each kernel? Events put our kernels 0.4-0.8 us
# slower in turns with cuBLAS than alone (runs L, M), at 29 us as at 346 us. bench_gemm_bench_turns is main's
# bench with --all-in-turns (this commit): every configuration verified, then all of them and cuBLAS timed in
# turns with one another, next to each one's time alone. Two configurations of one tile that differ only in a
# template constant with no effect here (GROUP_M 8 and 16 with 4 tile rows; or the 8192 pair) stand for "another
# kernel of ours". Twice.
source "$(dirname "$0")/common.sh"
TURNS_BENCH=$B/bench_gemm_bench_turns
for rep in 1 2; do
  turns_case 512-$rep "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 false false 6 64 true 16)" \
    "$(v9_wgk 128 128 1 1 false false 6 64 true 8)" "$(v9_wgk 128 128 2 1 false false 6 64 true 16)"
  turns_case 128-$rep "$(nt 128 4096 11008)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)" \
    "$(v9_wgk 64 64 1 1 false false 13 64 true 8)"
  turns_case 8192-$rep "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)" \
    "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
done
gpu_state
