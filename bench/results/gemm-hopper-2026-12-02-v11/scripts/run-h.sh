#!/usr/bin/env bash
# Run H (gemm v11): the next lead of §6, measured. 8192x4096x4096 bf16 nt, v9's winner (128x256, pair along
# M, persistent, 4 stages, staged C) against cuBLAS's kernel in the same bench process: L2 read sectors and
# hit rate, L2 traffic across the two partitions (ltcfabric), DRAM bytes, duration.
source "$(dirname "$0")/common.sh"
C2=$(v9_wgk 128 256 2 1 true false 4 64 true 8)
M="gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_requests_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,sm__cycles_active.avg,sm__inst_executed.sum"
for who in ours cublas; do
  case $who in ours) k="regex:gemm_wgmma" ;; cublas) k="regex:nvjet|xmma|cutlass|sm90_" ;; esac
  timeout 90 ncu --clock-control none -k "$k" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$(nt 8192 4096 4096)" --config "$C2" --out /tmp/b/ncu-$who > $OUT/ncu-l2-$who-runH.txt 2>&1
  echo "ncu $who rc=$? at $(el)s"
  grep -E "^  [a-zA-Z_].*\(|gpu__|lts__|dram__|sm__" $OUT/ncu-l2-$who-runH.txt | cut -c1-150
done
gpu_state
