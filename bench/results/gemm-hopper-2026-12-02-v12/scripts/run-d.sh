#!/usr/bin/env bash
# Run D (gemm v12): binaries with the evaluator's one L2 condition (every timed launch after a 2x-L2 memset,
# whatever the working set; decided once per evaluator). (1) The engine's GPU tests, with the new
# EveryConfigurationOfAProblemIsTimedWithTheL2Flushed (a split-K configuration first). (2) The cold-L2
# re-seed: cold-reseed-sweep.json (made by make-cold-reseed-sweep.py from the shipped database's top 6 per
# problem and their pingpong / persistence twins, then bayes +8) into a fresh database.
source "$(dirname "$0")/common.sh"
V12=bench/results/gemm-hopper-2026-12-02-v12
timeout 240 $B/ktune_gpu_tests --gtest_filter='EngineGpu.InProcess*:EngineGpu.Streaming*:EngineGpu.EveryConfiguration*' \
  > $OUT/gpu-tests-engine-runD.log 2>&1
echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  |best affine" $OUT/gpu-tests-engine-runD.log | tail -8
timeout 450 $B/ktune sweep $V12/cold-reseed-sweep.json --db $OUT/cold-runD.db > $OUT/sweep-runD.log 2>&1
echo "sweep rc=$? at $(el)s"
grep -E "budget reached|failed" $OUT/sweep-runD.log | grep -v "0 failed" | tail -5 | cut -c1-200
gpu_state
