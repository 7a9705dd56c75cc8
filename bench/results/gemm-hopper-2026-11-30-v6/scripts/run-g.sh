#!/usr/bin/env bash
# Runs G and H: tune the mma.sync path (bf16 nn 4096^3 and 8192^3) with bayes from three run-D tiles, then
# re-time each problem's three best configurations, the winner in turns with cuBLAS.
#   Run G: bash run-g.sh
#   Run H: START_DB=build-carry-lead/mma.db (run G's database) BUDGETS="80 32" SEEDS="7 8" bash run-g.sh
source "$(dirname "$0")/common.sh"
read -r budget4k budget8k <<< "${BUDGETS:-48 16}"
read -r seed4k seed8k <<< "${SEEDS:-5 6}"
[ -n "${START_DB:-}" ] && cp "$START_DB" $OUT/mma.db
START=(--start "$(tc 128 128 32 64 64 4 8)" --start "$(tc 256 128 32 64 64 4 8)" --start "$(tc 128 256 32 64 64 3 8)")
tune() { # size budget seed
  timeout 110 $B/ktune tune --kernel gemm --problem m=$1,n=$1,k=$1,dtype=bf16,layout=nn --strategy bayes --budget $2 \
    --seed $3 "${START[@]}" --db $OUT/mma.db >> $OUT/tune.log 2>&1
  echo "tune $1 rc=$? at $(el)s"
}
tune 4096 $budget4k $seed4k
tune 8192 $budget8k $seed8k
grep -E "Stopped" $OUT/tune.log | cut -c1-200
bench_database_winners $OUT/mma.db 3 mma-top3
gpu_state
