#!/usr/bin/env bash
# Run E (session 5): second sweep pass on the M=128 LLM shapes (split-K starts); ncu of the 4096^3 wgmma winner (128x256, 2-block cluster, STAGE_C) and of cuBLAS.
set -u
cd "$(dirname "$0")/.."
B=build-carry-lead/bin
export LD_LIBRARY_PATH=$PWD/build-carry-lead/lib:${LD_LIBRARY_PATH:-}
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/$B/ktune
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
$B/ktune --version
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
timeout 60 $B/ktune sweep bench/hopper-llm-sweep-small-m.json --db $OUT/small-m.db > /tmp/b-small-m.log 2>&1; echo "small-m sweep rc=$? at $(el)s"
tail -9 /tmp/b-small-m.log | cut -c1-160
W="BLOCK_K=64,BLOCK_M=128,BLOCK_N=256,CLUSTER_M=2,GROUP_M=8,PATH=wgmma,PERSISTENT=true,PINGPONG=false,REDUCE=workspace,SPLIT_K=1,STAGES=4,STAGE_C=true,WARP_M=64"
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
timeout 60 ncu --clock-control none -k regex:gemm_wgmma --launch-skip 3 --launch-count 1 $S $B/bench_gemm_bench --problem m=4096,n=4096,k=4096,dtype=bf16,layout=nt --config "$W" --out /tmp/b/ncu1 > $OUT/ncu-wgmma-4096-128x256-cluster2-stagec.txt 2>&1; echo "ncu ours rc=$? at $(el)s"
timeout 60 ncu --clock-control none -k regex:nvjet --launch-skip 3 --launch-count 1 $S $B/bench_gemm_bench --problem m=4096,n=4096,k=4096,dtype=bf16,layout=nt --config "$W" --out /tmp/b/ncu2 > $OUT/ncu-cublas-4096.txt 2>&1; echo "ncu cublas rc=$? at $(el)s"
grep -hE "Profiling|SM Frequency|Duration|Compute \(SM\)|Memory Throughput|Warp Cycles Per Issued|Issued Warp|L2 Hit|No Eligible" $OUT/ncu-*.txt | cut -c1-140
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv
