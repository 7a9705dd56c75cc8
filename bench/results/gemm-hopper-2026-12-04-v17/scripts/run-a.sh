#!/usr/bin/env bash
# Run A (gemm v17): where the per-tile fixed cost goes. The database's tables put our 128x256 persistent kernel
# on cuBLAS's slope in K (the same microseconds per unit of K at 8192x4096xK and 2048x4096xK) but on a higher
# intercept. (1) K sweep at 8192x4096: the 8192x4096x4096 database winner at K = 256 ... 8192, each bench
# verified and timed in turns with cuBLAS, for a fit of time against K, ours and cuBLAS's; (2) ncu's
# per-instruction warp samples (SourceCounters, WarpStateStats) of that kernel at K = 4096, exported as the
# SASS source page, to see how much of the consumers' time the epilogue takes.
source "$(dirname "$0")/common.sh"
WIN=$(v9_wgk 128 256 1 1 true false 4 64 true 16)
for k in 256 512 1024 2048 4096 8192; do
  bench ksweep k$k "$(nt 8192 4096 $k)" "$WIN"
done
M="--section SourceCounters --section WarpStateStats --section SpeedOfLight"
timeout 120 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 $M \
  -o /tmp/b/src-ours $B/bench_gemm_bench --problem "$(nt 8192 4096 4096)" --config "$WIN" --out /tmp/b/ncu-src \
  > $OUT/ncu-src-ours.log 2>&1
echo "ncu ours rc=$? at $(el)s"
ncu --import /tmp/b/src-ours.ncu-rep --page source --csv --print-source sass > $OUT/src-ours-sass.csv 2> $OUT/src-ours-err.txt
echo "source page rc=$? lines $(wc -l < $OUT/src-ours-sass.csv)"; head -c 600 $OUT/src-ours-err.txt
ncu --import /tmp/b/src-ours.ncu-rep --page details > $OUT/src-ours-details.txt 2>&1
grep -E "Duration|Warp Cycles Per Issued|Issued Warp|Stall" $OUT/src-ours-details.txt | head -20
gpu_state
