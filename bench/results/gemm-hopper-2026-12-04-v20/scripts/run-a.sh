#!/usr/bin/env bash
# Run A (gemm v20): wgmma blocks that take their items GPC by GPC (variants/items_by_gpc.patch). A grid of one
# block (or pair) per SM of the H200 takes its first item from the slot of the SM (TPC) it landed on, the slots
# ordered GPC by GPC as v17 run F's probe found them, so that the 16 SMs of a GPC work on neighbouring tiles
# (GROUP_M 4: 4 x 4 tiles, sharing A and B panels) and their requests can merge in the GPC's L2 request coalescer.
# The big shapes' winners and GROUP_M neighbours, each verified, main and the variant in turns with cuBLAS, twice.
source "$(dirname "$0")/common.sh"
gpc_cases() {
  local none pair g
  turns_case "$2-8192x4096x4096" "$(nt 8192 4096 4096)" $(for g in 16 8 4; do v9_wgk 128 256 1 1 true false 4 64 true $g; done) \
    "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  turns_case "$2-8192x14336x4096" "$(nt 8192 14336 4096)" $(for g in 16 8 4; do v9_wgk 128 256 1 1 true false 4 64 true $g; done)
  turns_case "$2-8192x4096x14336" "$(nt 8192 4096 14336)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)" \
    $(for g in 16 4; do v9_wgk 128 256 1 1 true false 4 64 true $g; done)
  turns_case "$2-4096x4096x4096" "$(nt 4096 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)" \
    $(for g in 8 4; do v9_wgk 128 256 1 1 true false 4 64 true $g; done)
  turns_case "$2-2048x4096x4096" "$(nt 2048 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)" \
    $(for g in 8 4; do v9_wgk 128 256 1 1 true false 4 64 true $g; done)
  turns_case "$2-2048x11008x4096" "$(nt 2048 11008 4096)" $(for g in 8 4; do v9_wgk 128 168 1 1 true false 5 64 true $g; done)
  turns_case "$2-512x11008x4096" "$(nt 512 11008 4096)" $(for g in 16 4; do v9_wgk 128 168 1 1 true false 5 64 true $g; done)
}
in_turns gpc_cases main items_by_gpc
tar czf $OUT/turns-runA.tgz -C $OUT $(cd $OUT && ls turns-*.txt) && rm $OUT/turns-*.txt  # few files come back
gpu_state
