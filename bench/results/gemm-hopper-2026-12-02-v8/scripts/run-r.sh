#!/usr/bin/env bash
# Run R: rmsnorm 32768x4096 bf16 (1.29x PyTorch in run O, at 96.1% of copy) with weights=smem in the space:
# the guided bench twice, each with the same-run copy and PyTorch.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
for rep in 1 2; do
  timeout 50 $B/bench_rowwise_bench --out /tmp/b/r-$rep --only "rmsnorm rows=32768" > /tmp/b/r-$rep.log 2>&1
  echo "=== rep $rep rc=$? at $(el)s" | tee -a $OUT/rmsnorm-32768.txt
  grep -E "D2D|best |^\| rmsnorm" /tmp/b/r-$rep.log | cut -c1-260 | tee -a $OUT/rmsnorm-32768.txt
done
gpu_state
