#!/usr/bin/env bash
# Run G: (1) compute-sanitizer memcheck and racecheck over the new interior STAGE_C epilogue next to the edge
# path (one shape whose tiles are partly inside C, partly cut by M and N); (2) ncu of the weakest LLM shape,
# 128x4096x4096, our database best against cuBLAS's kernel; (3) ncu stall reasons of the mma.sync 4096^3 winner.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
SAN=/usr/local/cuda/bin/compute-sanitizer
EDGE="m=1000,n=1000,k=512,dtype=bf16,layout=nt"
for tool in memcheck racecheck; do
  timeout 150 $SAN --tool $tool --print-limit 20 $B/bench_gemm_bench --problem $EDGE --config "$WINNER_4096" \
    --config "$(wg 128 128 2 true true 4 128 true)" --out /tmp/b/san-$tool > $OUT/sanitizer-$tool.txt 2>&1
  echo "$tool rc=$? at $(el)s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|hazard" $OUT/sanitizer-$tool.txt | head -5
done
SMALL=$(wg 64 96 1 false false 8 64 true 16)
for kern in gemm_wgmma "nvjet|xmma|cutlass|gemv|sm90_"; do
  timeout 60 ncu --clock-control none -k "regex:$kern" --launch-skip 5 --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    $B/bench_gemm_bench --problem m=128,n=4096,k=4096,dtype=bf16,layout=nt --config "$SMALL" --out /tmp/b/ncus \
    >> $OUT/ncu-128x4096x4096.txt 2>&1; echo "ncu $kern rc=$? at $(el)s"
done
grep -E "^  [a-z_0-9]+.*\(|Duration|DRAM Throughput|L2 Cache Throughput|Memory Throughput|Compute \(SM\)|Grid Size|Cluster Size|Registers|Achieved Occ" \
  $OUT/ncu-128x4096x4096.txt | cut -c1-120 | head -40
MMA_WINNER=$(tc 128 256 64 64 64 3 4)
timeout 90 ncu --clock-control none -k "regex:gemm_tc" --launch-skip 3 --launch-count 1 --section SpeedOfLight \
  --section WarpStateStats --section SchedulerStats --section Occupancy \
  --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
  $B/bench_gemm_bench --problem m=4096,n=4096,k=4096,dtype=bf16,layout=nn --config "$MMA_WINNER" --out /tmp/b/ncum \
  > $OUT/ncu-mma-4096.txt 2>&1; echo "ncu mma rc=$? at $(el)s"
grep -E "Duration|Compute \(SM\)|SM Frequency|Issue Slots Busy|Eligible Warps|No Eligible|Warp Cycles Per Issued|stalled_(barrier|long_score|short_score|mio|math|wait|not_sel|dispatch|tex|lg)" \
  $OUT/ncu-mma-4096.txt | cut -c1-120 | head -30
gpu_state
