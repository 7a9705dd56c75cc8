#!/usr/bin/env bash
# Run N (gemm v16): where 512x4096x4096 and 2048x4096x4096 fall short of cuBLAS, in kernel time. ncu (its own
# cache flush, clocks not locked), one launch each, of our configurations and of cuBLAS's kernel (run M named it:
# a 128x128 pair sharing A, 384 threads, at 512; 256x128 pairs, persistent, at 2048): duration, SM and tensor-pipe
# activity, L2 and DRAM traffic, launch and occupancy figures.
source "$(dirname "$0")/common.sh"
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors_srcunit_ltcfabric.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max"
profile() {  # profile LABEL WHO PROBLEM CONFIG (WHO: ours or cublas)
  local k="regex:gemm_wgmma"; [ $2 = cublas ] && k="regex:nvjet|xmma|cutlass|sm90_|gemv"
  timeout 90 ncu --clock-control none -k "$k" --launch-skip 5 --launch-count 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy --metrics $M \
    $B/bench_gemm_bench --problem "$3" --config "$4" --out /tmp/b/ncu-$1 > $OUT/ncu-$1.txt 2>&1
  echo "ncu $1 rc=$? at $(el)s"
  grep -E "^  [a-zA-Z_].*\(|Duration|gpu__time|sm__cycles_active.avg |lts__t_sectors_op_read" $OUT/ncu-$1.txt | cut -c1-120 | head -5
}
P512="$(nt 512 4096 4096)"
profile 512-none-w64-persistent ours "$P512" "$(v9_wgk 128 128 1 1 true false 6 64 true 4)"
profile 512-none-w128 ours "$P512" "$(v9_wgk 128 128 1 1 false false 6 128 true 16)"
profile 512-none-w64 ours "$P512" "$(v9_wgk 128 128 1 1 false false 6 64 true 16)"
profile 512-pair-n-w64 ours "$P512" "$(v9_wgk 128 128 1 2 false false 6 64 true 16)"
profile 512-pair-m-w64 ours "$P512" "$(v9_wgk 128 128 2 1 false false 6 64 true 16)"
profile 512-cublas cublas "$P512" "$(v9_wgk 128 128 1 1 false false 6 128 true 16)"
P2048="$(nt 2048 4096 4096)"
profile 2048-pair-m ours "$P2048" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
profile 2048-none ours "$P2048" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)"
profile 2048-cublas cublas "$P2048" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
gpu_state
