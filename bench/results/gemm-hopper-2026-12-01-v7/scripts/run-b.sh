#!/usr/bin/env bash
# Run B: (1) the mma.sync loop that issues each k-step's ldmatrix first and spreads the next tile's copies over
# the k-steps: GemmGpu.EveryPath verification, then the same configurations timed with the new and the old
# kernel text (the old text from build-carry-lead/old, run from there: NVRTC resolves the quoted include from
# the working directory first) in turns with cuBLAS; (2) where the wgmma fixed cost goes: 4096x4096x64 with the
# 4096^3 winner and its neighbours (no cluster, unstaged, not persistent, pingpong), and ncu's kernel
# duration of ours against cuBLAS's at that shape (events include the launch; ncu does not).
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
timeout 100 $B/ktune_gpu_tests --gtest_filter='GemmGpu.EveryPath*' > $OUT/gpu-tests-everypath.log 2>&1; echo "everypath rc=$? at $(el)s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|configs passed|verified" $OUT/gpu-tests-everypath.log | tail -6 | cut -c1-200
MMA=( "$(tc 128 256 64 64 64 3 1)" "$(tc 128 256 64 64 64 4 8)" "$(tc 256 128 64 64 64 3 8)" "$(tc 128 128 32 64 64 4 4)" )
ROOT=$PWD
rm -rf /tmp/old && mkdir -p /tmp/old && cp -r build-carry-lead/old/kernels_templated /tmp/old/
for s in 4096 8192; do
  bench mma-ab new$s m=$s,n=$s,k=$s,dtype=bf16,layout=nn "${MMA[@]}"
  (cd /tmp/old && B=$ROOT/$B && export KTUNE_KERNEL_DIR=/tmp/old/kernels_templated &&
   bench mma-ab old$s m=$s,n=$s,k=$s,dtype=bf16,layout=nn "${MMA[@]}")
done
K64=( "$WINNER_4096" "$(wg 128 256 1 true false 4 64 true)" "$(wg 128 256 2 true false 4 64 false)"
      "$(wg 128 256 2 false false 4 64 true)" "$(wg 128 128 2 true true 4 128 true)" "$(wg 128 128 1 false false 4 64 true)" )
bench small-k k64 m=4096,n=4096,k=64,dtype=bf16,layout=nt "${K64[@]}"
for kern in gemm_wgmma nvjet; do
  timeout 60 ncu --clock-control none -k "regex:$kern" --launch-skip 5 --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    $B/bench_gemm_bench --problem m=4096,n=4096,k=64,dtype=bf16,layout=nt --config "$WINNER_4096" --out /tmp/b/ncu64 \
    > $OUT/ncu-k64-$kern.txt 2>&1; echo "ncu $kern rc=$? at $(el)s"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Grid Size|Cluster|Block Size" $OUT/ncu-k64-$kern.txt | head -8
done
gpu_state
