#!/usr/bin/env bash
# Run C (gemm v19; binaries and kernels with variants/producer_warpgroup.patch, as run B): run B again after the register fix (run B hung: the MMA warps asked setmaxnreg for more
# registers than the producer had freed). One PRODUCER configuration alone first (the bench's 10 s hang watchdog),
# then run B's comparison in turns and the every-path GPU suite.
source "$(dirname "$0")/common.sh"
timeout 60 $B/bench_gemm_bench --problem "$(nn 4096 4096 4096)" --config "$(tcw 256 128 64 64 64 3 8 true true)" \
  --out /tmp/b/one > $OUT/one.txt 2>&1
rc=$?; echo "one rc=$rc at $(el)s"; grep -E "TFLOP/s|rror|FAIL|hang" $OUT/one.txt | cut -c1-200 | head -5
[ $rc -eq 0 ] || { gpu_state; exit 1; }  # a hang would hold every run after it
for n in 4096 8192; do
  turns_case p$n "$(nn $n $n $n)" "$(tcw 256 128 64 64 64 3 8 true false)" "$(tcw 128 256 64 64 64 3 16 true false)" \
    "$(tcw 256 128 64 64 64 3 8 true true)" "$(tcw 256 128 64 64 64 4 8 true true)" \
    "$(tcw 128 256 64 64 64 3 16 true true)" "$(tcw 128 256 64 64 64 4 16 true true)" \
    "$(tcw 128 256 32 64 64 4 16 true true)" "$(tcw 128 256 32 64 64 6 16 true true)"
done
gpu_tests 170 "GemmGpu.EveryPath*" gpu-tests-runC.log 12
gpu_state
