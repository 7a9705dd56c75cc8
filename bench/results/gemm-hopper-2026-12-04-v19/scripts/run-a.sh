#!/usr/bin/env bash
# Run A (gemm v19; v18's run J, prepared there): ncu's per-instruction warp samples (SourceCounters,
# WarpStateStats) of the mma.sync 4096^3 database winner (256x128x64, 3 stages, GROUP_M 8, STAGE_C), exported as
# the SASS source page, for where the main loop's issue slots go (its rate per K is 0.62-0.634x cuBLAS's, v18
# run I); and the same sections' summary for cuBLAS's kernel on the same problem, for the clock and pipe figures.
source "$(dirname "$0")/common.sh"
WIN=$(tcs 256 128 64 64 64 3 8 true)
M="--section SourceCounters --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section MemoryWorkloadAnalysis"
timeout 150 ncu --clock-control none -k "regex:gemm_tc" --launch-skip 5 --launch-count 1 $M \
  -o /tmp/b/src-mma $B/bench_gemm_bench --problem "$(nn 4096 4096 4096)" --config "$WIN" --out /tmp/b/ncu-src \
  > $OUT/ncu-src-mma.log 2>&1
echo "ncu rc=$? at $(el)s"
ncu --import /tmp/b/src-mma.ncu-rep --page source --csv --print-source sass > /tmp/b/src-mma-sass.csv 2> $OUT/src-mma-err.txt
echo "source page rc=$? lines $(wc -l < /tmp/b/src-mma-sass.csv)"; head -c 600 $OUT/src-mma-err.txt
gzip -c /tmp/b/src-mma-sass.csv > $OUT/src-mma-sass.csv.gz
ncu --import /tmp/b/src-mma.ncu-rep --page details > $OUT/src-mma-details.txt 2>&1
grep -E "Duration|SM Frequency|Warp Cycles Per Issued|Issued Warp|Eligible|Stall|Pipe" $OUT/src-mma-details.txt | head -30
timeout 120 ncu --clock-control none -k "regex:xmma|nvjet|cutlass|sm90" --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
  $B/bench_gemm_bench --problem "$(nn 4096 4096 4096)" --config "$WIN" --out /tmp/b/ncu-cublas \
  > $OUT/ncu-cublas.txt 2>&1
echo "ncu cublas rc=$? at $(el)s"
grep -E "^  [a-z_0-9]+.*\(|Duration|SM Frequency|Warp Cycles Per Issued|Issued Warp|Eligible|Pipe|Registers" $OUT/ncu-cublas.txt | head -30
gpu_state
