#!/usr/bin/env bash
# Run B (rowwise v9): rmsnorm 32768x4096 bf16 on persistent grids, one shared-memory segment per block, the
# weights held in shared memory (weights=smem, allowed only there) or read from L2, against run A's best
# (grid=rows, 128 threads, nc_noalloc), twice, seeds only, no PyTorch (warm-runB.json).
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-03-v9
rowwise_seeds_ab $V/warm-runB.json "rmsnorm rows=32768" persistent-ab.txt
gpu_state
