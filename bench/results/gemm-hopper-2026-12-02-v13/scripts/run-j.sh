#!/usr/bin/env bash
# Run J (gemm v13; run-j.sh runJ): widen-sweep-runJ.json (make-widen-sweep.py: the six LLM shapes run H left
# below 0.98x cuBLAS) searched further by bayes into a fresh database, merged into tuning_db/ktune.db (as it is
# merged locally afterwards), then run H's table again from the merged database: every problem's two best
# re-timed, the winner verified and timed in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
V13=bench/results/gemm-hopper-2026-12-02-v13
RUN=${1:-runJ}
timeout 300 $B/ktune sweep $V13/widen-sweep-$RUN.json --db $OUT/widen-$RUN.db > $OUT/sweep-$RUN.log 2>&1
echo "sweep rc=$? at $(el)s"; grep -E "budget reached|failed" $OUT/sweep-$RUN.log | tail -8 | cut -c1-160
$B/ktune db merge $OUT/widen-$RUN.db -o tuning_db/ktune.db | tail -1
bench_database_winners tuning_db/ktune.db 2 table > /dev/null
echo "table at $(el)s"; wc -l $OUT/table-rows.md
gpu_state
