#!/usr/bin/env bash
# Run I: the table. Every problem of the shipped database (after runs E, F and H were merged into it): its two
# best configurations re-timed in one run, the winner in turns with cuBLAS.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
bench_database_winners tuning_db/ktune.db 2 db-top2
gpu_state
