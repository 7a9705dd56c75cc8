#!/usr/bin/env bash
# Run A (diagnostics, no kernel change): the SASS and the per-instruction stall sampling of the mma.sync
# 4096^3 winner (128x256x64, 64x64 warps, 3 stages; its cubin compiled here with nvcc from the same header,
# carried in build-carry-lead/sass), and the wgmma 4096^3 winner at small K against cuBLAS in turns, which
# splits the fixed cost (launch, first fill, epilogue) from the main loop.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
MMA_WINNER=$(tc 128 256 64 64 64 3 1)
cuobjdump -sass build-carry-lead/sass/mma_winner.cubin > $OUT/mma-winner-sass.txt 2>&1; echo "sass rc=$? at $(el)s"
grep -cE "HMMA" $OUT/mma-winner-sass.txt
for k in 64 256 1024; do bench small-k k$k m=4096,n=4096,k=$k,dtype=bf16,layout=nt "$WINNER_4096"; done
timeout 120 ncu --clock-control none -k "regex:gemm_tc" --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats \
  --section SourceCounters --section MemoryWorkloadAnalysis \
  --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" --export /tmp/b/mma \
  $B/bench_gemm_bench --problem m=4096,n=4096,k=4096,dtype=bf16,layout=nn --config "$MMA_WINNER" --out /tmp/b/ncu \
  > /tmp/b/ncu-mma.log 2>&1; echo "ncu rc=$? at $(el)s"
ncu --import /tmp/b/mma.ncu-rep --page details > $OUT/ncu-mma-details.txt 2>&1
ncu --import /tmp/b/mma.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/ncu-mma-source.csv.gz
grep -E "Duration|Compute \(SM\)|Issued Warp|Warp Cycles Per Issued|No Eligible|stalled_(barrier|long_score|short_score|mio|math|wait|not_sel|dispatch)" \
  $OUT/ncu-mma-details.txt | cut -c1-130
gpu_state
