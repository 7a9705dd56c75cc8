#!/usr/bin/env bash
# Run B: issue 8's whole row-wise table with split_combine=in_kernel (and rmsnorm weights=smem on linked rows).
# (1) RowwiseGpu.* (long-row seeds include in_kernel with weights=smem); (2) bench_rowwise_bench over all 13
# shapes (guided sample, neighbours, on-chip seeds), warm-started from run O's and run A's bests plus
# warm-runB.json's extra seeds; the D2D copy and PyTorch eager in the same process.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-02-v7
timeout 170 $B/ktune_gpu_tests --gtest_filter='Rowwise*' --gtest_brief=1 > $OUT/rowwise-gpu-tests.log 2>&1; echo "tests rc=$? at $(el)s"
grep -E "verified|not launchable|Failure|FAILED|PASSED|rror" $OUT/rowwise-gpu-tests.log | head -20
timeout 400 $B/bench_rowwise_bench --out /tmp/b/all --warm $V/warm-runB.json > $OUT/rowwise-all.log 2>&1
echo "bench rc=$? at $(el)s"
for f in rowwise-bench.md rowwise-bench.json rowwise-progress.jsonl; do cp /tmp/b/all/$f $OUT/ 2>/dev/null; done
grep -E "D2D|^\| (softmax|rmsnorm|reduce) " $OUT/rowwise-bench.md | cut -c1-150
gpu_state
