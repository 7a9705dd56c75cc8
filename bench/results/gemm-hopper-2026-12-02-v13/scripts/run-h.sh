#!/usr/bin/env bash
# Run H (gemm v13): the table. tuning_db/ktune.db after the re-seed (run G's database merged into the shipped
# one, then `ktune db prune --stale --kernel gemm`): every gemm problem's two best configurations re-timed, the
# winner verified and timed in turns with cuBLAS, as v12's run E.
source "$(dirname "$0")/common.sh"
bench_database_winners tuning_db/ktune.db 2 table > /dev/null
echo "table at $(el)s"; wc -l $OUT/table-rows.md
gpu_state
