#!/bin/bash
# One device call: nn/tn cluster pairs on fix1 (every layout); if they pass, the full every-layout
# verification with pairs in the space on fix1; else the original kernels' failure pattern.
cd "$(dirname "$0")/.."
export KTUNE_SOURCE_DIR=$PWD
bin=build-carry/bin
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $OUT/gpu.txt
KTUNE_KERNEL_DIR=$PWD/.gpu-variants/fix1/kernels_templated timeout 150 $bin/ktune_gpu_tests \
  --gtest_filter=GemmGpu.WgmmaClusterPairsInEveryLayout >$OUT/diag_fix.log 2>&1
echo "fix1 diag rc=$?"; grep -E "configs passed|FAILED|PASSED" $OUT/diag_fix.log | head -8
if grep -q "PASSED.*1 test" $OUT/diag_fix.log; then
  KTUNE_KERNEL_DIR=$PWD/.gpu-variants/fix1/kernels_templated timeout 240 $bin/ktune_gpu_tests_pairs \
    --gtest_filter=GemmGpu.WgmmaPathMatchesCublasInEveryLayout >$OUT/layouts_fix.log 2>&1
  echo "fix1 every-layout rc=$?"; grep -E "configs passed|^FAIL|PASSED|FAILED" $OUT/layouts_fix.log | cut -c1-300 | head -20
else
  grep -E "^FAIL" $OUT/diag_fix.log | cut -c1-420 | head -12
  KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_CLUSTER_LAYOUTS=nn,tn timeout 100 $bin/ktune_gpu_tests \
    --gtest_filter=GemmGpu.WgmmaClusterPairsInEveryLayout >$OUT/diag_orig.log 2>&1
  echo "orig diag rc=$?"; grep -E "configs passed|^FAIL" $OUT/diag_orig.log | cut -c1-420 | head -24
fi
