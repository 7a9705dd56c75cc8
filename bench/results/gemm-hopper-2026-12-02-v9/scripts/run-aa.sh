#!/usr/bin/env bash
# Run AA: bench_tma_multicast_probe (bench/tma_multicast_probe.cu) timed, then each of its three ways under ncu
# with the L2 read sectors: does the L2 serve a multicast tile once, or once per receiving block?
source "$(dirname "$0")/common.sh"
$B/bench_tma_multicast_probe | tee $OUT/probe-runAA.txt
$B/bench_tma_multicast_probe 1024 8192 | tee -a $OUT/probe-runAA.txt  # 17 MB: fits the L2
for mode in 0 1 2; do
  # The program launches each way 23 times, in order (own, multicast, half): skip to the 4th of this one.
  timeout 60 ncu --clock-control none -k stream_tiles --launch-skip $((3 + 23 * mode)) --launch-count 1 \
    --metrics lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,dram__bytes_read.sum,gpu__time_duration.sum \
    $B/bench_tma_multicast_probe > $OUT/ncu-probe-$mode-runAA.txt 2>&1
  echo "mode $mode rc=$?"; grep -E "stream_tiles|lts__|dram__|gpu__time" $OUT/ncu-probe-$mode-runAA.txt | cut -c1-100
done
gpu_state
