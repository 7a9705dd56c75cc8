#!/usr/bin/env bash
# Run C: issue 8's whole row-wise table again (same binaries and kernels as run B): bench_rowwise_bench over all
# 13 shapes (guided sample, neighbours, on-chip seeds), warm-started from warm-runC.json: run B's and run A's
# bests, and the rmsnorm 1024x131072 best of results v8 (runs P and Q), which run B's seeds lacked. The D2D copy
# and PyTorch eager are timed in the same process.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-02-v7
timeout 400 $B/bench_rowwise_bench --out /tmp/b/all --warm $V/warm-runC.json > $OUT/rowwise-all.log 2>&1
echo "bench rc=$? at $(el)s"
for f in rowwise-bench.md rowwise-bench.json rowwise-progress.jsonl; do cp /tmp/b/all/$f $OUT/ 2>/dev/null; done
grep -E "D2D|^\| (softmax|rmsnorm|reduce) " $OUT/rowwise-bench.md | cut -c1-150
gpu_state
