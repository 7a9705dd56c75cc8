#!/usr/bin/env bash
# Run F (rowwise v11): the final commit's bench (its PyTorch times now held in one TorchTimes type; no change of
# behaviour meant) on the last-axis sum of 32768x4096 bf16 alone, seeded with run D's bests, to check it end to end.
source "$(dirname "$0")/common.sh"
mkdir -p /tmp/rw
timeout 200 $B/bench_rowwise_bench --only "reduce rows=32768,cols=4096,dtype=bf16,op=sum,axis=last" \
  --warm bench/results/rowwise-2026-12-04-v11/runD/rowwise-bench.json --out /tmp/rw > $OUT/rowwise-sum.log 2>&1
echo "rowwise bench rc=$?"
cp /tmp/rw/rowwise-bench.md $OUT/rowwise-sum.md 2>/dev/null && grep -E "^\||copy bandwidth|PyTorch eager" $OUT/rowwise-sum.md | head -6
grep -E "^TORCH" $OUT/rowwise-sum.log
gpu_state
