#!/usr/bin/env bash
# Run J (gemm v13): widen-sweep-runJ.json (make-widen-sweep.py: the six LLM shapes run H left
# below 0.98x cuBLAS) searched further by bayes into a fresh database, merged into tuning_db/ktune.db (as it is
# merged locally afterwards), then run H's table again from the merged database: every problem's two best
# re-timed, the winner verified and timed in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
V13=bench/results/gemm-hopper-2026-12-02-v13
timeout 300 $B/ktune sweep $V13/widen-sweep-runJ.json --db $OUT/widen-runJ.db > $OUT/sweep-runJ.log 2>&1
echo "sweep rc=$? at $(el)s"; grep -E "budget reached|failed" $OUT/sweep-runJ.log | tail -8 | cut -c1-160
$B/ktune db merge $OUT/widen-runJ.db -o tuning_db/ktune.db | tail -1
database_table tuning_db/ktune.db
gpu_state
