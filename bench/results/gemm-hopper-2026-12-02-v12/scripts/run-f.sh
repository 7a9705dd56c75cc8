#!/usr/bin/env bash
# Run F (gemm v12): (1) every engine GPU test (EngineGpu.*: statuses, timing, the one-L2-condition test, the
# isolated sweep through faults and hangs) with the final binaries; (2) run E's table again, to show how far
# one run of it is from another.
source "$(dirname "$0")/common.sh"
timeout 300 $B/ktune_gpu_tests --gtest_filter='EngineGpu.*' > $OUT/gpu-tests-engine-runF.log 2>&1
echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  (PASSED|FAILED)|^\[       OK|FAILED" $OUT/gpu-tests-engine-runF.log | tail -8
bench_database_winners tuning_db/ktune.db 2 table > /dev/null
echo "table at $(el)s"
python3 bench/results/gemm-hopper-2026-12-02-v12/scripts/table-summary.py $OUT/table-rows.md | tail -1
gpu_state
