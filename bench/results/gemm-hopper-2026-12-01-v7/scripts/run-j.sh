#!/usr/bin/env bash
# Run J: the deep rings that STAGES up to 16 admits (34ace68), verified on the edge shapes:
# GemmGpu.WgmmaPathMatchesCublasOnEdgeShapes with its two new picks (64x64, 13 stages, persistent, staged C;
# a pingpong ring of more than 8 stages), then compute-sanitizer racecheck over run H's two deep-ring winners.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
timeout 300 $B/ktune_gpu_tests --gtest_filter='GemmGpu.Wgmma*' > $OUT/gpu-tests.log 2>&1; echo "gpu tests rc=$? at $(el)s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|configs passed" $OUT/gpu-tests.log | tail -8 | cut -c1-200
timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --print-limit 20 $B/bench_gemm_bench \
  --problem m=1000,n=1000,k=512,dtype=bf16,layout=nt --config "$(wg 64 64 1 true false 13 64 true 16)" \
  --config "$(wg 64 64 1 true true 13 64 false 4)" --out /tmp/b/san > $OUT/sanitizer-racecheck.txt 2>&1
echo "racecheck rc=$? at $(el)s"; grep -E "RACECHECK SUMMARY|passed|FAIL" $OUT/sanitizer-racecheck.txt | cut -c1-160
gpu_state
