#!/usr/bin/env bash
# Run Y: the table of run U again, from the committed database (each problem's best re-timed, the winner in
# turns with cuBLAS): how far the LLM geometric mean moves from one run to the next.
source "$(dirname "$0")/common.sh"
bench_database_winners tuning_db/ktune.db 1 db-top1 | grep -E "in turns|cuBLAS [0-9]"
gpu_state
