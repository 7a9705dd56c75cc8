#!/usr/bin/env bash
# Run A: split_combine=in_kernel (a split row's blocks, resident together in a cooperative persistent grid,
# exchange partials through global memory). (1) RowwiseGpu.* (the long-row seeds now include in_kernel
# configurations); (2) A/B on the two long rows: the cluster bests against in_kernel variants, all timed in
# each of two runs; (3) the guided long-row bench (sample, on-chip seeds, neighbours).
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-02-v7
timeout 170 $B/ktune_gpu_tests --gtest_filter='Rowwise*' --gtest_brief=1 > $OUT/rowwise-gpu-tests.log 2>&1; echo "tests rc=$? at $(el)s"
grep -E "verified|not launchable|Failure|FAILED|PASSED|rror" $OUT/rowwise-gpu-tests.log | head -20
for rep in 1 2; do
  timeout 60 $B/bench_rowwise_bench --out /tmp/b/ab-$rep --warm $V/linked-ab.json --seeds-only --no-torch \
    --only cols=524288 --only cols=131072 > /tmp/b/ab-$rep.log 2>&1
  echo "=== rep $rep rc=$? at $(el)s" | tee -a $OUT/linked-ab.txt
  grep -E "D2D|GB/s|seed" /tmp/b/ab-$rep.log | cut -c1-260 | tee -a $OUT/linked-ab.txt
  cat /tmp/b/ab-$rep.log >> $OUT/linked-ab-full.log
done
timeout 150 $B/bench_rowwise_bench --out /tmp/b/long --warm $V/linked-ab.json --only cols=524288 --only cols=131072 > $OUT/rowwise-long.log 2>&1
echo "long bench rc=$? at $(el)s"; cp /tmp/b/long/rowwise-bench.md $OUT/rowwise-long-bench.md; cp /tmp/b/long/rowwise-bench.json $OUT/rowwise-long-bench.json
grep -E "D2D|^\| (softmax|rmsnorm) " $OUT/rowwise-long-bench.md | cut -c1-260
gpu_state
