#!/usr/bin/env bash
# Run A (rowwise v10): rmsnorm 32768x4096 bf16 (issue 8's one miss) with weights=smem on one-row blocks
# (grid=rows): the block copies its weight vector into shared memory with the row (cp.async), so the weights'
# L2 latency overlaps the row's DRAM latency instead of stalling the write pass. Against v9's best (the control,
# weights from L2) and its neighbours, twice without PyTorch, then once with PyTorch (warm-runA.json).
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-04-v10
rowwise_seeds_ab $V/warm-runA.json "rmsnorm rows=32768" rmsnorm-ab.txt
timeout 120 $B/bench_rowwise_bench --out /tmp/b/torch --warm $V/warm-runA.json --seeds-only \
  --only "rmsnorm rows=32768" > $OUT/rmsnorm-torch.txt 2>&1
echo "rmsnorm with torch rc=$? at $(el)s"; grep -E "D2D|GB/s|seed|torch|PyTorch" $OUT/rmsnorm-torch.txt | cut -c1-260
gpu_state
