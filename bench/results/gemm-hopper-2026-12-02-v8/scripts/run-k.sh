#!/usr/bin/env bash
# Run K: (1) GemmGpu.Wgmma* with the deep-ring picks of 549ff42 (not yet verified: run J of v7 was cut);
# (2) ncu of 8192x4096x4096, our database best against cuBLAS's kernel (what the large shapes' 2-3 % is);
# (3) the names (tile, stages, cluster) and durations of cuBLAS's kernels for the five M = 512 shapes.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
timeout 450 $B/ktune_gpu_tests --gtest_filter='GemmGpu.Wgmma*' > $OUT/gpu-tests.log 2>&1; echo "gpu tests rc=$? at $(el)s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|configs passed" $OUT/gpu-tests.log | tail -8 | cut -c1-200
BIG="m=8192,n=4096,k=4096,dtype=bf16,layout=nt"
for kern in gemm_wgmma "nvjet|xmma|cutlass|sm90_"; do
  timeout 60 ncu --clock-control none -k "regex:$kern" --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats \
    --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,smsp__cycles_active.avg \
    $B/bench_gemm_bench --problem $BIG --config "$WINNER_4096" --out /tmp/b/ncub >> $OUT/ncu-8192x4096x4096.txt 2>&1
  echo "ncu $kern rc=$? at $(el)s"
done
grep -E "^  [a-z_0-9]+.*\(|Duration|SM Frequency|Compute \(SM\)|gmma_cycles|Issue Slots|Warp Cycles Per Issued|Registers|Grid Size" \
  $OUT/ncu-8192x4096x4096.txt | cut -c1-140 | head -30
for nk in 4096,4096 11008,4096 4096,11008 14336,4096 4096,14336; do
  n=${nk%,*}; k=${nk#*,}
  timeout 40 ncu --clock-control none -k "regex:nvjet|xmma|cutlass|sm90_|gemv|splitK|reduce" --launch-skip 2 --launch-count 2 \
    --section LaunchStats --metrics gpu__time_duration.sum \
    $B/bench_gemm_bench --problem m=512,n=$n,k=$k,dtype=bf16,layout=nt --config "$(wg 128 128 1 true true 6 128 true)" \
    --out /tmp/b/ncu512 > /tmp/b/ncu512.txt 2>&1
  echo "=== 512x${n}x${k} rc=$?" >> $OUT/ncu-cublas-m512.txt
  grep -E "^  [a-zA-Z_0-9]+.*\(|gpu__time_duration|Grid Size|Cluster Size|Block Size" /tmp/b/ncu512.txt >> $OUT/ncu-cublas-m512.txt
done
cut -c1-160 $OUT/ncu-cublas-m512.txt
gpu_state
