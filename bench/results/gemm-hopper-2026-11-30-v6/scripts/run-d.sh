#!/usr/bin/env bash
# Run D: GPU verification of the mma.sync copy addressing and the harness refactor (GemmGpu.*; the row-wise
# tests ran out of time here and ran in run F); every shape's database winners re-timed in turns with cuBLAS;
# the mma.sync tiles; the 4096^3 winner at K = 4096/8192/16384 (the main loop grows with K, the rest does
# not); ncu stall sampling per SASS instruction.
source "$(dirname "$0")/common.sh"
timeout 340 $B/ktune_gpu_tests --gtest_filter='GemmGpu.*:Rowwise*' > $OUT/gpu-tests.log 2>&1; echo "gpu tests rc=$? at $(el)s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|configs passed" $OUT/gpu-tests.log | tail -16 | cut -c1-200
bench_database_winners tuning_db/ktune.db 3 exact-top3
MMA=( "$(tc 128 128 32 64 64 4 8)" "$(tc 256 128 32 64 64 4 8)" "$(tc 128 256 32 64 64 4 8)" "$(tc 128 256 32 64 64 3 8)"
      "$(tc 128 128 32 64 64 3 8)" )
for s in 4096 8192; do bench mma-exact mma$s m=$s,n=$s,k=$s,dtype=bf16,layout=nn "${MMA[@]}"; done
for k in 4096 8192 16384; do bench k-scaling k$k m=4096,n=4096,k=$k,dtype=bf16,layout=nt "$WINNER_4096"; done
profile gemm_wgmma /tmp/b/ncu-stalls.log --section WarpStateStats --section InstructionStats --section SourceCounters \
  --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" --export /tmp/b/ours
ncu --import /tmp/b/ours.ncu-rep --page details > $OUT/ncu-stalls-wgmma.txt 2>&1
ncu --import /tmp/b/ours.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/ncu-source-wgmma.csv.gz
gpu_state
