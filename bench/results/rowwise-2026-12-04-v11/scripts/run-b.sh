#!/usr/bin/env bash
# Run B (rowwise v11): the probe again with batched timing (10 back-to-back launches between the events, as the
# engine's gated stream times kernels, so the host's launch gap is not in the figures), twice; then
# bench_rowwise_bench on issue 8's two misses only (rmsnorm and the last-axis sum of 32768x4096 bf16), seeded with
# the bests of run D (the recorded run used rowwise v10 run B's, at commit edeb949), with the
# 1 GiB copy and PyTorch in the same process.
source "$(dirname "$0")/common.sh"
for rep in 1 2; do
  timeout 120 $B/bench_read_bandwidth_probe > $OUT/read-probe-batched-$rep.txt 2>&1
  echo "probe $rep rc=$?"
done
cat $OUT/read-probe-batched-1.txt
mkdir -p /tmp/rw
timeout 300 $B/bench_rowwise_bench --only "rmsnorm rows=32768,cols=4096" \
  --only "reduce rows=32768,cols=4096,dtype=bf16,op=sum,axis=last" \
  --warm bench/results/rowwise-2026-12-04-v11/runD/rowwise-bench.json --out /tmp/rw > $OUT/rowwise-misses.log 2>&1
echo "rowwise bench rc=$?"
cp /tmp/rw/rowwise-bench.md $OUT/rowwise-misses.md 2>/dev/null && grep -E "^\|" $OUT/rowwise-misses.md | head -8
grep -i "copy bandwidth" $OUT/rowwise-misses.md
gpu_state
