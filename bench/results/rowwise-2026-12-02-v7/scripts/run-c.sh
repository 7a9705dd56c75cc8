#!/usr/bin/env bash
# Run C: the row-wise GPU tests, then issue 8's whole row-wise table again (the kernels of run B): bench_rowwise_bench over all
# 13 shapes (guided sample, neighbours, on-chip seeds), warm-started from warm-runC.json: run B's and run A's
# bests, and the rmsnorm 1024x131072 best of results v8 (runs P and Q), which run B's seeds lacked. The D2D copy
# and PyTorch eager are timed in the same process.
source "$(dirname "$0")/common.sh"
# RowwiseGpu.* again: it now also checks that every kernel leaves its counters at zero, and counts the
# in-kernel split rows among the on-chip configurations it verifies.
rowwise_gpu_tests
rowwise_table $V/warm-runC.json
gpu_state
