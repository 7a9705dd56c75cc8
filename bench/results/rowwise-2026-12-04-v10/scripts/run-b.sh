#!/usr/bin/env bash
# Run B (rowwise v10): issue 8's whole row-wise table on today's kernels (rmsnorm weights=smem now also on
# one-row blocks): bench_rowwise_bench over all 13 shapes (guided sample, neighbours, on-chip seeds),
# warm-started from warm-runB.json (rowwise v7 run C's thirteen bests and run A's rmsnorm best). The D2D copy
# and PyTorch eager are timed in the same process.
source "$(dirname "$0")/../../rowwise-2026-12-02-v7/scripts/common.sh"
rowwise_table bench/results/rowwise-2026-12-04-v10/warm-runB.json
gpu_state
