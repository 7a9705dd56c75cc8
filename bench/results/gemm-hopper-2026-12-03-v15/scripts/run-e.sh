#!/usr/bin/env bash
# Run E (gemm v15): batched producer issue (variants/batched_issue.patch). The producer waits until KTUNE_BATCH
# consecutive stages are free, then issues their copies back to back, so that each B row's 128-byte pieces of
# BATCH k-tiles reach DRAM close in time instead of one k-tile apart. BATCH 2, 4 and 8 against main. Also
# `pfoff`, a control for runs C and D: run D's kernel with its prefetch never issued (AHEAD beyond any K), which
# times the producer loop run by the whole warp with a __syncwarp per k-tile. Each shape's database winner, in
# turns, twice; every bench verifies its configuration first.
source "$(dirname "$0")/common.sh"
declare -A dirs=([main]=$PWD/kernels_templated)
for b in 2 4 8; do dirs[batch$b]=$(patched_kernels batch$b batched_issue.patch "s/^#define KTUNE_BATCH .*/#define KTUNE_BATCH $b/"); done
dirs[pfoff]=$(patched_kernels pfoff l2_prefetch_lines.patch "s/^#define KTUNE_PF_AHEAD .*/#define KTUNE_PF_AHEAD 1000000/")
grep -h "define KTUNE" ${dirs[batch8]}/gemm/gemm_wgmma.cuh ${dirs[pfoff]}/gemm/gemm_wgmma.cuh
small_m_turns main batch2 batch4 batch8 pfoff
gpu_state
