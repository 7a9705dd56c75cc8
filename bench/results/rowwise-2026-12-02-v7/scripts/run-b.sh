#!/usr/bin/env bash
# Run B: issue 8's whole row-wise table with split_combine=in_kernel (and rmsnorm weights=smem on linked rows).
# (1) RowwiseGpu.* (long-row seeds include in_kernel with weights=smem); (2) bench_rowwise_bench over all 13
# shapes (guided sample, neighbours, on-chip seeds), warm-started from run O's and run A's bests plus
# warm-runB.json's extra seeds; the D2D copy and PyTorch eager in the same process.
source "$(dirname "$0")/common.sh"
rowwise_gpu_tests
rowwise_table $V/warm-runB.json
gpu_state
