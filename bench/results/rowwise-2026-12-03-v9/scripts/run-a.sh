#!/usr/bin/env bash
# Run A (rowwise v9): whole-row bulk copies for rmsnorm 32768x4096 bf16 (issue 8's one miss, 95.3% of copy,
# 1.28x PyTorch in v7 run C). (1) bench_rmsnorm_bulk_probe twice: every warp keeps DEPTH whole rows in flight
# with cp.async.bulk, verified against fp64 and timed against the same-process cudaMemcpy and a copy kernel;
# (2) the family's best configurations on the shape (v8's seeds) twice, no PyTorch; (3) once with PyTorch.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-03-v9
for rep in 1 2; do
  timeout 120 $B/bench_rmsnorm_bulk_probe > $OUT/probe-$rep.txt 2>&1
  echo "probe rep $rep rc=$? at $(el)s"; cat $OUT/probe-$rep.txt
done
rowwise_seeds_ab $V/warm-runA.json "rmsnorm rows=32768" family-ab.txt
timeout 120 $B/bench_rowwise_bench --out /tmp/b/torch --warm $V/warm-runA.json --seeds-only \
  --only "rmsnorm rows=32768" > $OUT/family-torch.txt 2>&1
echo "family with torch rc=$? at $(el)s"; grep -E "D2D|GB/s|seed|torch|PyTorch" $OUT/family-torch.txt | cut -c1-260
gpu_state
