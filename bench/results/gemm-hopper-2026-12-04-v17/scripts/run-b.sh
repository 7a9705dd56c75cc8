#!/usr/bin/env bash
# Run B (gemm v17): BLOCK_K = 32 (64-byte rows, the 64-byte swizzle) against main's 64 in the same shared memory.
# Run A's ncu samples had the consumers waiting on the ring's full barriers for 6.9% of their samples at
# 8192x4096x4096 (4 stages of 64: two held by the consumers, two in flight ahead). Half-size stages leave more
# of the same ring ahead of them. (1) The wgmma GPU verification suite (its sample of the space now includes
# BLOCK_K = 32); (2) each shape's database winner and its BLOCK_K = 32 twins (2x the stages, and fewer), every
# configuration verified, all timed in turns with one another and cuBLAS (--all-in-turns), twice.
source "$(dirname "$0")/common.sh"
timeout 200 $B/ktune_gpu_tests --gtest_filter='GemmGpu.Wgmma*' > $OUT/gpu-tests-wgmma.log 2>&1
echo "wgmma gpu tests rc=$? at $(el)s"; grep -E "^\[ *(OK|FAILED|PASSED)|tally|verified|Failure" $OUT/gpu-tests-wgmma.log | head -12
bk32() { echo "${1/BLOCK_K=64,/BLOCK_K=32,}" | sed -E "s/STAGES=[0-9]+/STAGES=$2/"; }
W8192=$(v9_wgk 128 256 1 1 true false 4 64 true 16)
W2048=$(v9_wgk 128 256 2 1 true false 4 64 true 8)
W512=$(v9_wgk 128 128 1 1 true false 6 64 true 8)
W128=$(v9_wgk 64 64 1 1 false false 13 64 true 8)
for rep in 1 2; do
  turns_case 8192-$rep "$(nt 8192 4096 4096)" "$W8192" "$(bk32 "$W8192" 8)" "$(bk32 "$W8192" 7)" "$(bk32 "$W8192" 6)"
  turns_case 2048-$rep "$(nt 2048 4096 4096)" "$W2048" "$(bk32 "$W2048" 8)" "$(bk32 "$W2048" 6)"
  turns_case 512-$rep "$(nt 512 4096 4096)" "$W512" "$(bk32 "$W512" 12)" "$(bk32 "$W512" 10)"
  turns_case 128-$rep "$(nt 128 4096 11008)" "$W128" "$(bk32 "$W128" 16)"
done
gpu_state
