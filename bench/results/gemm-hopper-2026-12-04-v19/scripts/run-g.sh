#!/usr/bin/env bash
# Run G (gemm v19): where in the k-tile the copies are issued. Main issues them at the first k-step, after its
# ldmatrix; variants/copies_step1.patch and copies_step2.patch issue them at the second and third (the last one when
# the stage has fewer k-steps). Main's three best tiles at 4096^3 and 8192^3, each kernel text timed in turns with
# cuBLAS, main and the variants alternating, twice (in_turns).
source "$(dirname "$0")/common.sh"
V18_VARIANTS=$PWD/$V19/variants  # kernels_of reads this folder first
copy_cases() {
  local tiles=("$(tcs 256 128 64 64 64 3 8 true)" "$(tcs 128 256 64 64 64 3 16 true)" "$(tcs 128 256 32 64 64 4 16 true)")
  turns_case "$2-4096" "$(nn 4096 4096 4096)" "${tiles[@]}"
  turns_case "$2-8192" "$(nn 8192 8192 8192)" "${tiles[@]}"
}
in_turns copy_cases main copies_step1 copies_step2
tar czf $OUT/turns-runG.tgz -C $OUT $(cd $OUT && ls turns-*.txt) && rm $OUT/turns-*.txt  # few files come back
gpu_state
