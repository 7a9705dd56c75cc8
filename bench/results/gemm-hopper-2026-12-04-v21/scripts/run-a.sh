#!/usr/bin/env bash
# Run A (gemm v21): the state of main at the start of the session, for issues 5 and 9. The whole GPU suite;
# issue 5's benchmark (`bench_gemm_bench --suite ampere`) twice; the shipped database's table (every problem's
# two best re-timed, the faster verified and timed in turns with cuBLAS; v13's database_table) twice.
source "$(dirname "$0")/common.sh"
gpu_state
gpu_tests 400 "" gpu-tests-runA.log 45
ampere_suite A1
ampere_suite A2
for rep in 1 2; do
  database_table tuning_db/ktune.db
  mv $OUT/table-rows.md $OUT/table-rows-$rep.md; mv $OUT/table.txt $OUT/table-$rep.txt
done
gpu_state
