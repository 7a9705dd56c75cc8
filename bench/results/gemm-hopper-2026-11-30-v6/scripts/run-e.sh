#!/usr/bin/env bash
# Run E: the split-K sweep pass on the M = 128 LLM shapes; ncu of the 4096^3 winner and of cuBLAS (same launch).
source "$(dirname "$0")/common.sh"
timeout 60 $B/ktune sweep bench/hopper-llm-sweep-small-m.json --db $OUT/small-m.db > /tmp/b/small-m.log 2>&1
echo "small-m sweep rc=$? at $(el)s"
tail -9 /tmp/b/small-m.log | cut -c1-160
SECTIONS=(--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats
          --section MemoryWorkloadAnalysis)
profile gemm_wgmma $OUT/ncu-wgmma-4096-128x256-cluster2-stagec.txt "${SECTIONS[@]}"
profile nvjet $OUT/ncu-cublas-4096.txt "${SECTIONS[@]}"
grep -hE "Profiling|SM Frequency|Duration|Compute \(SM\)|Warp Cycles Per Issued|Issued Warp" $OUT/ncu-*.txt | cut -c1-140
gpu_state
