#!/usr/bin/env bash
# Run C (gemm v14): the full wgmma verification suite on the merged TMA-store epilogue
# (GemmGpu.WgmmaPathMatchesCublasOnEdgeShapes: every edge shape, dtype and picked configuration against cuBLAS
# on poisoned outputs); then variants/suspend_hint.patch (the ring's mbarrier waits with a suspend-time hint,
# as cuBLAS's kernels wait: TRYWAIT, then NANOSLEEP.SYNCS) against main on v13's five staged shapes, in turns,
# twice; and the SASS of both waits (cubins compiled here with nvcc, carried in build-carry-lead/cubins).
source "$(dirname "$0")/common.sh"
timeout 420 $B/ktune_gpu_tests --gtest_filter='GemmGpu.WgmmaPath*' > $OUT/gpu-tests-wgmma-runC.log 2>&1
echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  |tally|passed|failed" $OUT/gpu-tests-wgmma-runC.log | tail -8
in_turns staged_cases main suspend_hint
for name in main suspend_hint; do
  cuobjdump -sass build-carry-lead/cubins/$name.cubin | grep -E "TRYWAIT|NANOSLEEP|PHASECHK|YIELD" > $OUT/sass-waits-$name.txt
  echo "sass $name: $(wc -l < $OUT/sass-waits-$name.txt) wait lines, $(grep -c NANOSLEEP $OUT/sass-waits-$name.txt) NANOSLEEP"
done
gpu_state
