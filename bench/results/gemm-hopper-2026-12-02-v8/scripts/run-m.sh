#!/usr/bin/env bash
# Run M: the balanced persistent row-wise grid (balanced_persistent_grid: the fewest whole clusters that finish in
# the fewest rounds). Binaries of main at ee009a3 in build-carry-lead/bin ("old": the most the device holds) and
# of the change in build-carry-lead/new/bin. (1) RowwiseGpu.* with the new launcher; (2) A/B on the long-row
# bests, old and new alternately, twice; (3) the long-row bench (guided sample) with the new launcher.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
N=build-carry-lead/new/bin
timeout 150 $N/ktune_gpu_tests --gtest_filter='Rowwise*' --gtest_brief=1 > $OUT/rowwise-gpu-tests.log 2>&1; echo "tests rc=$? at $(el)s"
grep -E "verified|not launchable|Failure|FAILED|PASSED" $OUT/rowwise-gpu-tests.log | head -12
R=bench/results/gemm-hopper-2026-12-02-v8/rowwise-long-bests.json
for rep in 1 2; do
  for v in old new; do
    bin=$([ $v = old ] && echo $B || echo $N)
    timeout 60 $bin/bench_rowwise_bench --out /tmp/b/ab-$v-$rep --warm $R --seeds-only --no-torch \
      --only cols=524288 --only cols=131072 > /tmp/b/ab-$v-$rep.log 2>&1
    echo "=== $v rep $rep rc=$? at $(el)s" | tee -a $OUT/grid-ab.txt
    grep -E "D2D|^\| (softmax|rmsnorm) " /tmp/b/ab-$v-$rep.log | cut -c1-100 | tee -a $OUT/grid-ab.txt
  done
done
timeout 120 $N/bench_rowwise_bench --out /tmp/b/long --only cols=524288 --only cols=131072 > $OUT/rowwise-long.log 2>&1
echo "long bench rc=$? at $(el)s"; cp /tmp/b/long/rowwise-bench.md $OUT/rowwise-long-bench.md; cp /tmp/b/long/rowwise-bench.json $OUT/rowwise-long-bench.json
grep -E "D2D|^\| (softmax|rmsnorm) " $OUT/rowwise-long-bench.md | cut -c1-200
gpu_state
