#!/usr/bin/env bash
# Run D (gemm v14): widen-sweep-runD.json (make-widen-sweep.py, seed 59: all 20 LLM shapes, each from its two
# best in the re-seeded database, 30 more bayes evaluations at M <= 512 and 14 above) into a fresh database,
# merged into the shipped one (as it is merged locally afterwards); then the table from it twice
# (table-rows-1.md, table-rows-2.md), to show the run-to-run spread next to the gain.
source "$(dirname "$0")/common.sh"
timeout 330 $B/ktune sweep $V14/widen-sweep-runD.json --db $OUT/widen-runD.db > $OUT/sweep-runD.log 2>&1
echo "sweep rc=$? at $(el)s"; grep -E "budget reached|failed" $OUT/sweep-runD.log | grep -v " 0 failed" | tail -5 | cut -c1-200
$B/ktune db merge $OUT/widen-runD.db -o tuning_db/ktune.db | tail -1
for rep in 1 2; do
  database_table tuning_db/ktune.db
  mv $OUT/table-rows.md $OUT/table-rows-$rep.md; mv $OUT/table.txt $OUT/table-$rep.txt
done
gpu_state
