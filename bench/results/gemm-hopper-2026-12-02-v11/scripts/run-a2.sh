#!/usr/bin/env bash
# Run A2 (gemm v11): why the stream-K twins of run A were 9-55% slower. (1) A twin on a shape whose last
# round is full (2048x11008x4096 in 128x168 tiles: 8 rounds, no item is split): the kernel's code alone;
# (2) ncu of 2048x4096x4096 (C1 and its twin): duration, SM activity spread, stall reasons.
source "$(dirname "$0")/common.sh"
C168=$(wgk 128 168 1 1 true false 5 64 true 8)
C1=$(wgk 128 256 1 1 true false 4 64 true 8)
bench ab2 full-2048x11008x4096 "$(nt 2048 11008 4096)" "$C168" "$(sk "$C168")"
for cfg in "$C1" "$(sk "$C1")"; do
  timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 \
    --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__inst_executed.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,dram__bytes_read.sum,smsp__inst_executed_op_global_red.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
    --section WarpStateStats --section SpeedOfLight \
    $B/bench_gemm_bench --problem "$(nt 2048 4096 4096)" --config "$cfg" --out /tmp/b/ncu >> $OUT/ncu-2048x4096x4096-runA2.txt 2>&1
  echo "ncu rc=$? at $(el)s"
done
grep -E "gemm_wgmma|duration|cycles_active|inst_executed|sectors|dram__bytes|Stall|Warp Cycles Per|Duration" $OUT/ncu-2048x4096x4096-runA2.txt | cut -c1-150 | head -60
gpu_state
