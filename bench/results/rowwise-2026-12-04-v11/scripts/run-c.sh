#!/usr/bin/env bash
# Run C (rowwise v11): the 13-shape table with PyTorch timed as our kernels are: ten back-to-back calls per event
# pair (bench_rowwise_bench now reports that, and the one-call-per-pair figure of runs up to v10, which also timed
# the host's dispatch of each call, in its JSON). Seeded with run D's bests (the recorded runs C and D used
# rowwise v10 run B's, at commit edeb949).
source "$(dirname "$0")/common.sh"
mkdir -p /tmp/rw
timeout 400 $B/bench_rowwise_bench --warm bench/results/rowwise-2026-12-04-v11/runD/rowwise-bench.json --out /tmp/rw \
  > $OUT/rowwise-all.log 2>&1
echo "rowwise bench rc=$?"
cp /tmp/rw/rowwise-bench.md /tmp/rw/rowwise-bench.json $OUT/ 2>/dev/null
grep -E "^\|" $OUT/rowwise-bench.md | head -16 | cut -c1-220
grep -E "^TORCH" $OUT/rowwise-all.log
gpu_state
