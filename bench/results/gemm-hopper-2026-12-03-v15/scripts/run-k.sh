#!/usr/bin/env bash
# Run K (gemm v15): is it the half-box copies or the cluster launch? Run I's uncoupled pairs load the operand a
# pair would share in two half-box copies (the tensor maps' boxes are the multicast half). Here
# variants/pair_uncoupled_full_box.patch loads each whole tile with one copy, run by bench_gemm_bench_fullbox:
# main's bench built with whole-tile boxes for every cluster shape (the harness's box_m / box_n set to the
# block tile; built for this run only, not on main). Only a cluster launch (and its two barriers) is left
# against no cluster. main (the normal binary, its pairs multicast half boxes) and the variant (the fullbox
# binary; never main's pairs there, which would receive whole boxes twice) in turns, twice, on run G's cases.
source "$(dirname "$0")/common.sh"
FULL=$(kernels_of pair_uncoupled_full_box) || exit 1
mkdir -p /tmp/fullbox && ln -sf $PWD/$B/bench_gemm_bench_fullbox /tmp/fullbox/bench_gemm_bench
for rep in 1 2; do
  (export KTUNE_KERNEL_DIR=$PWD/kernels_templated; pair_cases turns-main main$rep)
  (B=/tmp/fullbox; export KTUNE_KERNEL_DIR=$FULL; pair_cases turns-full-box full_box$rep)
done
gpu_state
