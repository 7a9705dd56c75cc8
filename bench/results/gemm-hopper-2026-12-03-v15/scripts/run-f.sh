#!/usr/bin/env bash
# Run F (gemm v15): what the M = 128 plateau is bound by. ncu (its own cache flush before the kernel, clocks not
# locked) of our database winner and of cuBLAS's kernel at 128x11008x4096 and 128x4096x14336: Speed Of Light plus
# DRAM and L2 counters, one launch each.
source "$(dirname "$0")/common.sh"
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors_srcunit_ltcfabric.sum,sm__cycles_active.avg,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed"
profile_shape() {  # profile_shape LABEL PROBLEM CONFIG
  local who k
  for who in ours cublas; do
    case $who in ours) k="regex:gemm_wgmma" ;; cublas) k="regex:nvjet|xmma|cutlass|sm90_|gemv" ;; esac
    timeout 90 ncu --clock-control none -k "$k" --launch-skip 5 --launch-count 1 --section SpeedOfLight --metrics $M \
      $B/bench_gemm_bench --problem "$2" --config "$3" --out /tmp/b/ncu-$1-$who > $OUT/ncu-$1-$who.txt 2>&1
    echo "ncu $1 $who rc=$? at $(el)s"
    grep -E "^  [a-z_]+.*(nvjet|gemm|xmma|sm90)|Duration|Throughput|dram__|lts__" $OUT/ncu-$1-$who.txt | cut -c1-110 | head -16
  done
}
profile_shape 128x11008x4096 "$(nt 128 11008 4096)" "$(v9_wgk 128 88 1 1 false false 7 64 true 8)"
profile_shape 128x4096x14336 "$(nt 128 4096 14336)" "$(v9_wgk 64 64 1 1 false false 13 64 true 8)"
gpu_state
