#!/usr/bin/env bash
# Run O: issue 8's whole row-wise table on main's kernels (ee009a3): bench_rowwise_bench over all 13 shapes
# (guided sample of 100, up to 50 neighbours, the long-row bests of run M as seeds), the D2D copy and PyTorch
# eager in the same process, and the kernel splitter's dispatch report.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
timeout 470 $B/bench_rowwise_bench --out /tmp/b/all --warm bench/results/gemm-hopper-2026-12-02-v8/rowwise-long-bench-runM.json \
  > $OUT/rowwise-all.log 2>&1
echo "bench rc=$? at $(el)s"
for f in rowwise-bench.md rowwise-bench.json rowwise-progress.jsonl; do cp /tmp/b/all/$f $OUT/ 2>/dev/null; done
ls /tmp/b/all
grep -E "D2D|^\| (softmax|rmsnorm|reduce) |meeting" $OUT/rowwise-bench.md | cut -c1-150
gpu_state
