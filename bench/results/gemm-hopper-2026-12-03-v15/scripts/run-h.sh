#!/usr/bin/env bash
# Run H (gemm v15): the issue-9 table on the shipped database as it stands after run B's re-seed and prune (the
# wgmma rows are v14's), twice: every shipped problem's database winner, verified, in turns with cuBLAS
# (v13's database_table). Files table-rows-{1,2}.md and table-{1,2}.txt.
source "$(dirname "$0")/common.sh"
for rep in 1 2; do
  database_table tuning_db/ktune.db
  mv $OUT/table-rows.md $OUT/table-rows-$rep.md; mv $OUT/table.txt $OUT/table-$rep.txt
done
gpu_state
