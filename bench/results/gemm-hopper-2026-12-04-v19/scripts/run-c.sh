#!/usr/bin/env bash
# Run C (gemm v19; binaries and kernels with variants/producer_warpgroup.patch, as run B): run B again after the register fix (run B hung: the MMA warps asked setmaxnreg for more
# registers than the producer had freed). One PRODUCER configuration alone first (the bench's 10 s hang watchdog),
# then run B's comparison in turns and the every-path GPU suite.
source "$(dirname "$0")/common.sh"
timeout 60 $B/bench_gemm_bench --problem "$(nn 4096 4096 4096)" --config "$(tcw 256 128 64 64 64 3 8 true true)" \
  --out /tmp/b/one > $OUT/one.txt 2>&1
rc=$?; echo "one rc=$rc at $(el)s"; grep -E "TFLOP/s|rror|FAIL|hang" $OUT/one.txt | cut -c1-200 | head -5
[ $rc -eq 0 ] || { gpu_state; exit 1; }  # a hang would hold every run after it
producer_turns
gpu_tests 170 "GemmGpu.EveryPath*" gpu-tests-runC.log 12
gpu_state
