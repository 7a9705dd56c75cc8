#!/usr/bin/env bash
# Run B (gemm v14): the re-seed after the TMA-store epilogue (fd477de stales every stored wgmma result):
# reseed-sweep.json into a fresh database, merged into the shipped database (as it is merged locally
# afterwards) and the stale results pruned; then the table from it: every problem's two best re-timed, the
# faster verified and timed in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
timeout 260 $B/ktune sweep $V14/reseed-sweep.json --db $OUT/reseed-runB.db > $OUT/sweep-runB.log 2>&1
echo "sweep rc=$? at $(el)s"
grep -E "budget reached|failed" $OUT/sweep-runB.log | grep -v " 0 failed" | tail -5 | cut -c1-200
$B/ktune db merge $OUT/reseed-runB.db -o tuning_db/ktune.db | tail -1
$B/ktune db prune --stale --kernel gemm --db tuning_db/ktune.db | tail -2
database_table tuning_db/ktune.db
gpu_state
