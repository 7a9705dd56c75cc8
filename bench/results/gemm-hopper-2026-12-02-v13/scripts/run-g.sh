#!/usr/bin/env bash
# Run G (gemm v13): main's descriptor change (c9fe4a4) on the full wgmma verification suite
# (GemmGpu.WgmmaPathMatchesCublasOnEdgeShapes: every edge shape, dtype and picked configuration against
# cuBLAS on poisoned outputs), then the re-seed: reseed-sweep.json into a fresh database.
source "$(dirname "$0")/common.sh"
V13=bench/results/gemm-hopper-2026-12-02-v13
timeout 390 $B/ktune_gpu_tests --gtest_filter='GemmGpu.WgmmaPath*' > $OUT/gpu-tests-wgmma-runG.log 2>&1
echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  |tally|passed|failed" $OUT/gpu-tests-wgmma-runG.log | tail -12
timeout 185 $B/ktune sweep $V13/reseed-sweep.json --db $OUT/reseed-runG.db > $OUT/sweep-runG.log 2>&1
echo "sweep rc=$? at $(el)s"
grep -E "budget reached|failed" $OUT/sweep-runG.log | grep -v " 0 failed" | tail -5 | cut -c1-200
gpu_state
