#!/usr/bin/env bash
# Run C (gemm v11): (1) the re-seed of the wgmma database on the STREAM_K kernel text (reseed-sweep.json,
# made by make-reseed-sweep.py from the committed database: each problem's three best stale keys, their
# stream-K twins where the last round is partial, two bayes evaluations more); (2) the committed database
# merged with it and pruned of stale results, as it will be committed; (3) the table: every problem's two
# best configurations re-timed, the winner in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
V11=bench/results/gemm-hopper-2026-12-02-v11
timeout 240 $B/ktune sweep $V11/reseed-sweep.json --db $OUT/reseed.db > $OUT/sweep-runC.log 2>&1; echo "sweep rc=$? at $(el)s"
grep -A30 "^Summary" $OUT/sweep-runC.log | cut -c1-160 | head -32
$B/ktune db merge tuning_db/ktune.db $OUT/reseed.db -o $OUT/merged.db > $OUT/merge-runC.log 2>&1; echo "merge rc=$?"
$B/ktune db prune --db $OUT/merged.db --kernel gemm --stale >> $OUT/merge-runC.log 2>&1; echo "prune rc=$?"
tail -3 $OUT/merge-runC.log
bench_database_winners $OUT/merged.db 2 db-top2
gpu_state
