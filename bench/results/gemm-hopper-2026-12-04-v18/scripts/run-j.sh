#!/usr/bin/env bash
# Run J (gemm v18, prepared, not run: the session's device time was spent): ncu's per-instruction warp samples (SourceCounters, WarpStateStats) of the mma.sync 4096^3
# database winner (256x128x64, 3 stages, GROUP_M 8, STAGE_C) on the final code, exported as the SASS source page,
# for where the main loop's issue slots go (its rate per K is 0.62-0.634x cuBLAS's, run I).
source "$(dirname "$0")/common.sh"
WIN=$(tcs 256 128 64 64 64 3 8 true)
M="--section SourceCounters --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy"
timeout 150 ncu --clock-control none -k "regex:gemm_tc" --launch-skip 5 --launch-count 1 $M \
  -o /tmp/b/src-mma $B/bench_gemm_bench --problem "$(nn 4096 4096 4096)" --config "$WIN" --out /tmp/b/ncu-src \
  > $OUT/ncu-src-mma.log 2>&1
echo "ncu rc=$? at $(el)s"
ncu --import /tmp/b/src-mma.ncu-rep --page source --csv --print-source sass > /tmp/b/src-mma-sass.csv 2> $OUT/src-mma-err.txt
echo "source page rc=$? lines $(wc -l < /tmp/b/src-mma-sass.csv)"; head -c 600 $OUT/src-mma-err.txt
gzip -c /tmp/b/src-mma-sass.csv > $OUT/src-mma-sass.csv.gz
ncu --import /tmp/b/src-mma.ncu-rep --page details > $OUT/src-mma-details.txt 2>&1
grep -E "Duration|SM Frequency|Warp Cycles Per Issued|Issued Warp|Eligible|Stall|Pipe" $OUT/src-mma-details.txt | head -30
gpu_state
