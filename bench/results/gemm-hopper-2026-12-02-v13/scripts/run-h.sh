#!/usr/bin/env bash
# Run H (gemm v13): the table. tuning_db/ktune.db after the re-seed (run G's database merged into the shipped
# one, then `ktune db prune --stale --kernel gemm`): every gemm problem's two best configurations re-timed, the
# winner verified and timed in turns with cuBLAS, as v12's run E. Then, for the epilogue's unexplained cost
# (runs C, D), ncu's per-instruction counts and stall samples (SourceCounters) of main's 512x4096x4096 kernel.
source "$(dirname "$0")/common.sh"
database_table tuning_db/ktune.db
timeout 90 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --section SourceCounters \
  --section WarpStateStats --page source --print-source sass --csv $B/bench_gemm_bench --problem "$(nt 512 4096 4096)" \
  --config "$(v9_wgk 128 128 1 1 true false 6 128 true 16)" --out /tmp/b/sass-512 > $OUT/sass-512-runH.csv 2>&1
echo "ncu rc=$? at $(el)s"; gzip -9 $OUT/sass-512-runH.csv
gpu_state
