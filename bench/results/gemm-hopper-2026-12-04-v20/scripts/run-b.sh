#!/usr/bin/env bash
# Run B (gemm v20): four staging buffers per consumer warp (variants/staging4.patch). Where a warp's 16 rows of
# C take more than two 128-byte staging passes (BLOCK_N > 128 for 16-bit C), main's epilogue waits, before its
# third and fourth pass, until the TMA store of the pass two back has read its buffer. The variant keeps
# STAGES - 1 ring stages and gives the freed stage to two more buffers per warp, so no pass waits. First the
# wgmma edge-shape suite on the variant's text, then main (4-stage and 3-stage rings) and the variant in turns
# with cuBLAS on the big shapes' winners, twice.
source "$(dirname "$0")/common.sh"
export KTUNE_KERNEL_DIR=$(kernels_of staging4) || exit 1
gpu_tests 300 "GemmGpu.WgmmaPathMatchesCublasOnEdgeShapes" gpu-wgmma-staging4-runB.log 8
export KTUNE_KERNEL_DIR=$PWD/kernels_templated
staging_cases() {
  local g
  turns_case "$2-8192x4096x4096" "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)" \
    "$(v9_wgk 128 256 1 1 true false 3 64 true 16)"
  turns_case "$2-8192x14336x4096" "$(nt 8192 14336 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)"
  turns_case "$2-8192x4096x14336" "$(nt 8192 4096 14336)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  turns_case "$2-4096x4096x4096" "$(nt 4096 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)" \
    "$(v9_wgk 128 256 1 1 true false 4 64 true 8)" "$(v9_wgk 128 256 1 1 true false 3 64 true 8)"
  turns_case "$2-2048x4096x4096" "$(nt 2048 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)" \
    "$(v9_wgk 128 256 1 1 true false 4 64 true 8)"
  turns_case "$2-2048x11008x4096" "$(nt 2048 11008 4096)" "$(v9_wgk 128 168 1 1 true false 5 64 true 8)"
  turns_case "$2-512x11008x4096" "$(nt 512 11008 4096)" "$(v9_wgk 128 168 1 1 true false 5 64 true 16)"
}
in_turns staging_cases main staging4
tar czf $OUT/turns-runB.tgz -C $OUT $(cd $OUT && ls turns-*.txt) && rm $OUT/turns-*.txt  # few files come back
gpu_state
