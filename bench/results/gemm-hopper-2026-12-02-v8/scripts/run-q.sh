#!/usr/bin/env bash
# Run Q: confirmation of run P's rmsnorm 1024x131072 best (weights=smem, cluster 8, 128 threads, shuffle) against
# its weights=global twin and run O's best, three runs, each with the same-run copy and PyTorch eager.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
R=bench/results/gemm-hopper-2026-12-02-v8/rmsnorm-weights-confirm.json
for rep in 1 2 3; do
  timeout 60 $B/bench_rowwise_bench --out /tmp/b/c-$rep --warm $R --seeds-only --only cols=131072 > /tmp/b/c-$rep.log 2>&1
  echo "=== rep $rep rc=$? at $(el)s" | tee -a $OUT/weights-confirm.txt
  grep -E "D2D|seed|^\| rmsnorm" /tmp/b/c-$rep.log | cut -c1-200 | tee -a $OUT/weights-confirm.txt
  cat /tmp/b/c-$rep.log >> $OUT/weights-confirm-full.log
done
gpu_state
