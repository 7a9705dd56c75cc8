#!/usr/bin/env bash
# Run B (gemm v22; carry build-carry-lead and build-carry-tma, see make-carry-tma.sh): is the mma.sync path fed by
# TMA (branch wip/tc-tma-loads) correct on the H200? The TMA_LOADS GPU test (every layout, edges in M, N and K,
# bf16 and fp16 with fp32 C, six configurations per problem) and the every-path edge suite (its picks include TMA
# configurations where the problem allows them) on the branch's kernels; then the TMA test on the
# tma_empty_barriers variant (no block barrier in the k-tile loop: warps release stages on "empty" mbarriers).
source "$(dirname "$0")/common.sh"
use_tma_build
gpu_tests 330 "GemmGpu.MmaPathWithTmaLoads*:GemmGpu.EveryPath*" gpu-tma-runB.log 14
export KTUNE_KERNEL_DIR=$(tma_kernels_of tma_empty_barriers)
gpu_tests 200 "GemmGpu.MmaPathWithTmaLoads*" gpu-tma-empty-runB.log 6
gpu_state
