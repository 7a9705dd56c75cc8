#!/usr/bin/env bash
# Run W: is the A-multicast pair slow, or the kernel kind it was tried in? 512x4096x4096, the cooperative
# 128x128 6-stage staged configuration of run S/V three ways (no cluster, a pair along N sharing A, a pair
# along M sharing B), timed, then each under ncu with the L2 sector counts (run V saw the pair along N move
# 65.5% of L2 throughput against 44.3% for the unclustered pingpong best).
source "$(dirname "$0")/common.sh"
P512="m=512,n=4096,k=4096,dtype=bf16,layout=nt"
SOLO=$(wgk 128 128 1 1 false false 6 64 true 8)
PAIR_N=$(wgk 128 128 1 2 false false 6 64 true 8)
PAIR_M=$(wgk 128 128 2 1 false false 6 64 true 8)
for i in 1 2; do bench twins w$i "$P512" "$SOLO" "$PAIR_N" "$PAIR_M"; done
M=lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,dram__bytes_read.sum,smsp__inst_executed.sum,sm__cycles_elapsed.max,lts__t_sectors.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
for cfg in "$SOLO" "$PAIR_N" "$PAIR_M"; do
  timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --section SpeedOfLight \
    --metrics $M $B/bench_gemm_bench --problem $P512 --config "$cfg" --out /tmp/b/ncu >> $OUT/ncu-twins-runW.txt 2>&1
  echo "ncu rc=$? at $(el)s"
done
grep -E "void gemm_wgmma|lts__|dram__|smsp__inst|sm__cycles|Duration" $OUT/ncu-twins-runW.txt | cut -c1-110
gpu_state
