#!/usr/bin/env bash
# Run C: the row-wise GPU tests, then issue 8's whole row-wise table again (the kernels of run B): bench_rowwise_bench over all
# 13 shapes (guided sample, neighbours, on-chip seeds), warm-started from warm-runC.json: run B's and run A's
# bests, and the rmsnorm 1024x131072 best of results v8 (runs P and Q), which run B's seeds lacked. The D2D copy
# and PyTorch eager are timed in the same process.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-02-v7
# RowwiseGpu.* again: it now also checks that every kernel leaves its counters at zero, and counts the
# in-kernel split rows among the on-chip configurations it verifies.
timeout 170 $B/ktune_gpu_tests --gtest_filter='Rowwise*' --gtest_brief=1 > $OUT/rowwise-gpu-tests.log 2>&1; echo "tests rc=$? at $(el)s"
grep -E "verified|not launchable|Failure|FAILED|PASSED|rror" $OUT/rowwise-gpu-tests.log | head -20
timeout 400 $B/bench_rowwise_bench --out /tmp/b/all --warm $V/warm-runC.json > $OUT/rowwise-all.log 2>&1
echo "bench rc=$? at $(el)s"
for f in rowwise-bench.md rowwise-bench.json rowwise-progress.jsonl; do cp /tmp/b/all/$f $OUT/ 2>/dev/null; done
grep -E "D2D|^\| (softmax|rmsnorm|reduce) " $OUT/rowwise-bench.md | cut -c1-150
gpu_state
