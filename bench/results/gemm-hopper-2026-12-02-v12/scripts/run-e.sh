#!/usr/bin/env bash
# Run E (gemm v12): the table. tuning_db/ktune.db after the cold re-seed (run D's database merged into the
# shipped one, then `ktune db prune --warm-l2 --kernel gemm`): every gemm problem's two best configurations
# re-timed, the winner verified and timed in turns with cuBLAS, as v9's run U.
source "$(dirname "$0")/common.sh"
bench_database_winners tuning_db/ktune.db 2 table > /dev/null
echo "table at $(el)s"; wc -l $OUT/table-rows.md
gpu_state
