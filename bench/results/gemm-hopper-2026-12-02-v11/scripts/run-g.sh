#!/usr/bin/env bash
# Run G (gemm v11): the order of tiles within a round. Main's rasterization visits GROUP_M tile rows
# (cluster rows) together, down the rows first; variants/gemm_common_group_n.patch visits GROUP_M tile
# columns together instead (the transpose). v9's winners, GROUP_M 4 / 8 / 16, main and the variant in
# separate processes (a copy of kernels_templated on the H200); each run's winner is verified.
source "$(dirname "$0")/common.sh"
K=$PWD/kernels_templated
GN=$(variant_kernels gemm_common_group_n) || exit 1
for variant in main gn; do
  case $variant in main) export KTUNE_KERNEL_DIR=$K ;; gn) export KTUNE_KERNEL_DIR=$GN ;; esac
  bench raster-$variant $variant-8192x4096x4096 "$(nt 8192 4096 4096)" \
    "$(v9_wgk 128 256 2 1 true false 4 64 true 4)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)" "$(v9_wgk 128 256 2 1 true false 4 64 true 16)"
  bench raster-$variant $variant-8192x14336x4096 "$(nt 8192 14336 4096)" \
    "$(v9_wgk 128 256 1 1 true false 4 64 true 4)" "$(v9_wgk 128 256 1 1 true false 4 64 true 8)" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)"
  bench raster-$variant $variant-4096x4096x4096 "$(nt 4096 4096 4096)" \
    "$(v9_wgk 128 256 2 1 true false 4 64 true 4)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)" "$(v9_wgk 128 256 2 1 true false 4 64 true 16)"
done
gpu_state
