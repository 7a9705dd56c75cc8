#!/usr/bin/env bash
# Run N: grouped shared-memory reads in the refilling write pass (RowShare::visit_refilling<TOGETHER>: a group's
# four reads issued at once, then its writes, then its refills). Kernel trees (one binary, main at ee009a3's
# harness; NVRTC compiles each tree, run from its own directory): A = main, B = softmax grouped, C = B and rmsnorm
# grouped (build-carry-lead/variants/{A,B,C}). (1) A/B/C on the long-row bests, in alternation, twice;
# (2) RowwiseGpu.* on tree C; (3) the long-row bench (guided sample) on tree C.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
ROOT=$PWD
R=$ROOT/bench/results/gemm-hopper-2026-12-02-v8/rowwise-long-bests.json
for rep in 1 2; do
  for v in A B C; do
    (cd build-carry-lead/variants/$v && export KTUNE_KERNEL_DIR=$PWD/kernels_templated &&
     timeout 60 $ROOT/$B/bench_rowwise_bench --out /tmp/b/ab-$v-$rep --warm $R --seeds-only --no-torch \
       --only cols=524288 --only cols=131072 > /tmp/b/ab-$v-$rep.log 2>&1
     echo "=== $v rep $rep rc=$? at $(el)s" | tee -a $OUT/refill-ab.txt
     grep -E "D2D|^\| (softmax|rmsnorm) " /tmp/b/ab-$v-$rep.log | cut -c1-100 | tee -a $OUT/refill-ab.txt)
  done
done
cd build-carry-lead/variants/C && export KTUNE_KERNEL_DIR=$PWD/kernels_templated
timeout 150 $ROOT/$B/ktune_gpu_tests --gtest_filter='Rowwise*' --gtest_brief=1 > $OUT/rowwise-gpu-tests-C.log 2>&1; echo "tests rc=$? at $(el)s"
grep -E "verified|not launchable|Failure|FAILED|PASSED" $OUT/rowwise-gpu-tests-C.log | head -12
timeout 120 $ROOT/$B/bench_rowwise_bench --out /tmp/b/long --only cols=524288 --only cols=131072 > $OUT/rowwise-long-C.log 2>&1
echo "long bench rc=$? at $(el)s"; cp /tmp/b/long/rowwise-bench.md $OUT/rowwise-long-bench-C.md; cp /tmp/b/long/rowwise-bench.json $OUT/rowwise-long-bench-C.json
grep -E "D2D|^\| (softmax|rmsnorm) |best smem" $OUT/rowwise-long-C.log | cut -c1-220
gpu_state
