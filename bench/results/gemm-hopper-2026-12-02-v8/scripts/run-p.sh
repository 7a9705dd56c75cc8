#!/usr/bin/env bash
# Run P: rmsnorm weights=smem (the persistent block's weight segment held in shared memory after its row segment;
# binaries and kernels of this working tree). (1) RowwiseGpu.* (the sampled spaces and long-row seeds now include
# weights=smem); (2) A/B on rmsnorm 1024x131072: run O's best with weights=global and =smem, plus three
# weights=smem neighbours, all timed in each of three runs; (3) the guided long-row bench for rmsnorm.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
timeout 150 $B/ktune_gpu_tests --gtest_filter='Rowwise*' --gtest_brief=1 > $OUT/rowwise-gpu-tests.log 2>&1; echo "tests rc=$? at $(el)s"
grep -E "verified|not launchable|Failure|FAILED|PASSED" $OUT/rowwise-gpu-tests.log | head -12
R=bench/results/gemm-hopper-2026-12-02-v8/rmsnorm-weights-ab.json
for rep in 1 2 3; do
  timeout 60 $B/bench_rowwise_bench --out /tmp/b/ab-$rep --warm $R --seeds-only --no-torch --only cols=131072 > /tmp/b/ab-$rep.log 2>&1
  echo "=== rep $rep rc=$? at $(el)s" | tee -a $OUT/weights-ab.txt
  grep -E "D2D|GB/s.*weights=|seed" /tmp/b/ab-$rep.log | cut -c1-240 | tee -a $OUT/weights-ab.txt
  cat /tmp/b/ab-$rep.log >> $OUT/weights-ab-full.log
done
timeout 100 $B/bench_rowwise_bench --out /tmp/b/long --only cols=131072 > $OUT/rmsnorm-long.log 2>&1
echo "long bench rc=$? at $(el)s"; cp /tmp/b/long/rowwise-bench.md $OUT/rmsnorm-long-bench.md
grep -E "D2D|^\| rmsnorm |best smem" $OUT/rmsnorm-long.log | cut -c1-240
gpu_state
