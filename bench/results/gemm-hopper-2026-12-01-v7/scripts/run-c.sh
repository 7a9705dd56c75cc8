#!/usr/bin/env bash
# Run C: (1) where the mma.sync copies of the next tile go, four ways, each from its own kernel folder in
# build-carry-lead (run from there: NVRTC resolves the quoted include from the working directory first):
#   old   the committed loop: all copies at k-step 0, before that step's ldmatrix;
#   v1    the working tree: ldmatrix first, copies spread over all k-steps, committed at the last;
#   v2    ldmatrix first, all copies at k-step 0;
#   v3    ldmatrix first, copies spread over the first kSteps - 1 k-steps;
#   v4    ldmatrix first, copies spread over the first kSteps / 2 k-steps;
# (2) ncu stall sampling per SASS instruction of the wgmma 4096^3 winner at K = 64, where it takes 28 us
#     against cuBLAS's 12 (run B), to see where the fixed cost goes.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
MMA=( "$(tc 128 256 64 64 64 3 1)" "$(tc 128 256 64 64 64 4 8)" )
ROOT=$PWD
variant() { # NAME DIR
  rm -rf /tmp/$1 && mkdir -p /tmp/$1 && cp -r $2/kernels_templated /tmp/$1/
  for s in 4096 8192; do
    (cd /tmp/$1 && B=$ROOT/$B && export KTUNE_KERNEL_DIR=/tmp/$1/kernels_templated &&
     bench mma-variants $1-$s m=$s,n=$s,k=$s,dtype=bf16,layout=nn "${MMA[@]}")
  done
}
variant old build-carry-lead/old
variant v1 .
variant v2 build-carry-lead/v2
variant v3 build-carry-lead/v3
variant v4 build-carry-lead/v4
variant old2 build-carry-lead/old
timeout 90 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 \
  --section WarpStateStats --section SchedulerStats --section InstructionStats --section SourceCounters \
  --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" --export /tmp/b/k64 \
  $B/bench_gemm_bench --problem m=4096,n=4096,k=64,dtype=bf16,layout=nt --config "$WINNER_4096" --out /tmp/b/ncu64 \
  > /tmp/b/ncu64.log 2>&1; echo "ncu rc=$? at $(el)s"
ncu --import /tmp/b/k64.ncu-rep --page details > $OUT/ncu-k64-stalls.txt 2>&1
ncu --import /tmp/b/k64.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/ncu-k64-source.csv.gz
grep -E "Issued Warp|Warp Cycles Per Issued|No Eligible|stalled_(barrier|long_score|short_score|mio|math|wait|lg_|membar|sleeping|drain)" \
  $OUT/ncu-k64-stalls.txt | cut -c1-130
gpu_state
