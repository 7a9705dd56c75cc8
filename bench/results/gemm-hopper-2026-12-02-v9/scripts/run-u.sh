#!/usr/bin/env bash
# Run U: (1) resume run T's re-seed database (build-carry-lead/reseed.db): the two M = 128 problems whose
# run T starts did not fit shared memory, and 12 more bayes evaluations on run T's weakest shapes
# (sweep-u.json); (2) the shipped database merged with it and pruned of stale results, as it will be
# committed; (3) the table: every problem's two best configurations re-timed, the winner in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
V9=bench/results/gemm-hopper-2026-12-02-v9
cp build-carry-lead/reseed.db $OUT/reseed-u.db
timeout 200 $B/ktune sweep $V9/sweep-u.json --db $OUT/reseed-u.db > $OUT/sweep-u.log 2>&1; echo "sweep rc=$? at $(el)s"
grep -A12 "^Summary" $OUT/sweep-u.log | cut -c1-160
$B/ktune db merge tuning_db/ktune.db $OUT/reseed-u.db -o $OUT/merged.db > $OUT/merge.log 2>&1; echo "merge rc=$?"
$B/ktune db prune --db $OUT/merged.db --kernel gemm --stale >> $OUT/merge.log 2>&1; echo "prune rc=$?"
tail -3 $OUT/merge.log
bench_database_winners $OUT/merged.db 2 db-top2
gpu_state
