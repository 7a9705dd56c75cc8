#!/usr/bin/env bash
# Run D (gemm v19; binaries and kernels with variants/producer_warpgroup.patch): run A's ncu sections (per-instruction warp samples, the SASS source page) for the PRODUCER
# configuration 128x256x64, 3 stages, GROUP_M 16, STAGE_C, and for main's same tiles without the producer: where
# the 4-6% that run C measured goes.
source "$(dirname "$0")/common.sh"
M="--section SourceCounters --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy"
for v in true false; do
  timeout 100 ncu --clock-control none -k "regex:gemm_tc" --launch-skip 5 --launch-count 1 $M -o /tmp/b/src-$v \
    $B/bench_gemm_bench --problem "$(nn 4096 4096 4096)" --config "$(tcw 128 256 64 64 64 3 16 true $v)" \
    --out /tmp/b/ncu-$v > $OUT/ncu-$v.log 2>&1
  echo "ncu producer=$v rc=$? at $(el)s"
  ncu --import /tmp/b/src-$v.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip -c > $OUT/src-$v-sass.csv.gz
  ncu --import /tmp/b/src-$v.ncu-rep --page details > $OUT/src-$v-details.txt 2>&1
  grep -E "Duration|SM Frequency|Warp Cycles Per Issued|Issue Slots|SM Busy|Registers Per" $OUT/src-$v-details.txt | head -12
done
gpu_state
