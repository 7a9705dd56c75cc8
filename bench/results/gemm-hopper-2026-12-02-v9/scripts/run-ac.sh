#!/usr/bin/env bash
# Run AC: where the pair along N loses its time (512x4096x4096, run W's cooperative twins): ncu warp-state
# statistics and stall reasons, the unclustered twin against the pair along N.
source "$(dirname "$0")/common.sh"
P512="m=512,n=4096,k=4096,dtype=bf16,layout=nt"
SOLO=$(wgk 128 128 1 1 false false 6 64 true 8)
PAIR_N=$(wgk 128 128 1 2 false false 6 64 true 8)
for cfg in "$SOLO" "$PAIR_N"; do
  timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --section WarpStateStats \
    --section SchedulerStats --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio",smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
    $B/bench_gemm_bench --problem $P512 --config "$cfg" --out /tmp/b/ncu >> $OUT/ncu-stalls-runAC.txt 2>&1
  echo "ncu rc=$?"
done
grep -E "void gemm_wgmma|gpu__time|gmma_cycles|inst_executed.sum|stalled_(barrier|long_score|short_score|mio|math|wait|membar|sleeping|branch|dispatch|lg|no_inst|selected|not_sel).*ratio|Eligible Warps|No Eligible" \
  $OUT/ncu-stalls-runAC.txt | awk '{$1=$1; print}' | cut -c1-110
gpu_state
