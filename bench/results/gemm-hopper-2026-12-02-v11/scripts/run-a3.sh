#!/usr/bin/env bash
# Run A3 (gemm v11): the stream-K share moved after the whole items (the tail runs last, on an L2 that the
# whole rounds warmed, instead of first on a flushed one); kernel text only, the binaries of runs A/A2.
source "$(dirname "$0")/common.sh"
C2=$(wgk 128 256 2 1 true false 4 64 true 8)
C1=$(wgk 128 256 1 1 true false 4 64 true 8)
C168=$(wgk 128 168 1 1 true false 5 64 true 8)
bench ab3 last-2048x4096x4096  "$(nt 2048 4096 4096)"  "$C1" "$(sk "$C1")"
bench ab3 last-8192x14336x4096 "$(nt 8192 14336 4096)" "$C1" "$(sk "$C1")"
bench ab3 last-8192x4096x4096  "$(nt 8192 4096 4096)"  "$C2" "$(sk "$C2")"
bench ab3 last-full-2048x11008x4096 "$(nt 2048 11008 4096)" "$C168" "$(sk "$C168")"
timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 \
  --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__inst_executed.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,dram__bytes_read.sum \
  $B/bench_gemm_bench --problem "$(nt 2048 4096 4096)" --config "$(sk "$C1")" --out /tmp/b/ncu > $OUT/ncu-2048x4096x4096-runA3.txt 2>&1
grep -E "gemm_wgmma|duration|cycles_active|inst_executed|sectors|dram__bytes" $OUT/ncu-2048x4096x4096-runA3.txt | cut -c1-150
gpu_state
