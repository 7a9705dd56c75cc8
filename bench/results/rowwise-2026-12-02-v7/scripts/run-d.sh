#!/usr/bin/env bash
# Run D: rmsnorm 32768x4096 bf16, run C's one miss (1.28x PyTorch at 95.3% of copy). Its searches never timed
# weights=smem there: that knob needs grid=persistent, two knobs away from the grid=rows best, so no neighbour
# step reaches it. (1) A/B, seeds only, twice: run C's best against persistent shared-memory rows with weights
# in shared memory or from L2; (2) the guided bench on this shape alone, warm-started from the same seeds, with
# the copy and PyTorch in the same process.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-02-v7
rowwise_seeds_ab $V/warm-runD.json "rmsnorm rows=32768" weights-ab.txt
timeout 120 $B/bench_rowwise_bench --out /tmp/b/one --warm $V/warm-runD.json --only "rmsnorm rows=32768" > $OUT/rmsnorm-32768.log 2>&1
echo "bench rc=$? at $(el)s"; cp /tmp/b/one/rowwise-bench.md $OUT/rmsnorm-32768-bench.md; cp /tmp/b/one/rowwise-progress.jsonl $OUT/rmsnorm-32768-progress.jsonl
grep -E "D2D|^\| rmsnorm " $OUT/rmsnorm-32768-bench.md | cut -c1-330
gpu_state
