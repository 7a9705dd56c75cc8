#!/usr/bin/env bash
# Run C (gemm v20): the mma.sync loop issues half of its last k-step's mma before the stage barrier
# (variants/split_last_multiply.patch), so the tensor pipe has work queued while the warp waits there; the other
# half still hides the next stage's first ldmatrix. First every path's edge-shape suite on the variant's text, then
# main and the variant in turns with cuBLAS on main's three best tiles at 4096^3 and 8192^3, twice.
source "$(dirname "$0")/common.sh"
export KTUNE_KERNEL_DIR=$(kernels_of split_last_multiply) || exit 1
gpu_tests 300 "GemmGpu.EveryPathMatchesCublasOnEdgeShapes" gpu-every-path-split-runC.log 10
export KTUNE_KERNEL_DIR=$PWD/kernels_templated
split_cases() {
  local tiles=("$(tcs 256 128 64 64 64 3 8 true)" "$(tcs 128 256 64 64 64 3 16 true)" "$(tcs 128 256 32 64 64 4 16 true)")
  turns_case "$2-4096" "$(nn 4096 4096 4096)" "${tiles[@]}"
  turns_case "$2-8192" "$(nn 8192 8192 8192)" "${tiles[@]}"
}
in_turns split_cases main split_last_multiply
tar czf $OUT/turns-runC.tgz -C $OUT $(cd $OUT && ls turns-*.txt) && rm $OUT/turns-*.txt  # few files come back
gpu_state
