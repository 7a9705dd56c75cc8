#!/usr/bin/env bash
# Run I (gemm v12): the SASS of cuBLAS's pair kernel for 512x4096x4096 (nvjet_sm90_tst_128x128_64x6_2x1, a
# 2-block cluster along M, faster than our unclustered best) and of our pair along M with the same tile and
# ring (128x128, one 128-row consumer, 6 stages), with ncu's per-instruction execution counts and stall
# samples (SourceCounters), for reading how cuBLAS's main loop waits, releases and multicasts.
source "$(dirname "$0")/common.sh"
P=$(nt 512 4096 4096)
C=$(v9_wgk 128 128 2 1 false false 6 128 true 16)
for k in nvjet gemm_wgmma; do
  timeout 200 ncu --clock-control none -k "regex:$k" --launch-skip 5 --launch-count 1 --section SourceCounters \
    --section WarpStateStats --page source --print-source sass --csv \
    $B/bench_gemm_bench --problem "$P" --config "$C" --out /tmp/b/sass-$k > $OUT/sass-$k-runI.csv 2>&1
  echo "ncu $k rc=$? at $(el)s, $(wc -l < $OUT/sass-$k-runI.csv) lines"
done
timeout 100 ncu --clock-control none -k "regex:nvjet|gemm_wgmma" --launch-skip 5 --launch-count 2 --section WarpStateStats \
  --section LaunchStats --section Occupancy $B/bench_gemm_bench --problem "$P" --config "$C" --out /tmp/b/stats > $OUT/stats-runI.txt 2>&1
echo "ncu stats rc=$?"
gzip -9 $OUT/sass-*-runI.csv
gpu_state
