#!/usr/bin/env bash
# Run A (rowwise v8): why rmsnorm 32768x4096 bf16 (95.3% of copy in v7 run C) trails softmax on the same
# shape (96.9%). (1) A/B, seeds only, twice: run C's rmsnorm best against block shapes like softmax's best
# (4 rows of 128 threads) and a few neighbours; (2) ncu of the rmsnorm best and of softmax's best there:
# DRAM bytes and throughput, L1 hit rate (the weights), L2 sectors, instructions, stall reasons.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-02-v8
rowwise_seeds_ab $V/warm-runA.json "rmsnorm rows=32768" rmsnorm-ab.txt
M="dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,sm__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
for f in rmsnorm softmax; do
  timeout 60 ncu --clock-control none -k "regex:${f}_kernel" --launch-skip 5 --launch-count 1 --metrics $M \
    --section WarpStateStats --section Occupancy \
    $B/bench_rowwise_bench --out /tmp/b/ncu-$f --warm $V/warm-runA.json --seeds-only --no-torch \
    --only "$f rows=32768" > $OUT/ncu-$f-32768x4096.txt 2>&1
  echo "ncu $f rc=$? at $(el)s"
  grep -E "_kernel|dram__|duration|hit_rate|lts__|inst_executed|warps_active|Stall|Warp Cycles Per Issued|Achieved Occupancy|Block Limit" \
    $OUT/ncu-$f-32768x4096.txt | cut -c1-140 | head -24
done
gpu_state
