#!/usr/bin/env bash
# Run T: (1) mma.sync nn at 4096^3 and 8192^3: the database's one block of 8 warps (128x256x64) against
# two blocks of 4 warps per SM (128x128x32 and 256x64x32, MIN_BLOCKS=2); (2) the re-seed of the wgmma
# database on the CLUSTER_N / BLOCK_N-step-8 kernel text (reseed-sweep.json, made by make-reseed-sweep.py
# from the committed database and extra-starts.json); (3) each problem's best of the re-seed re-timed, the
# winner in turns with cuBLAS (the table).
source "$(dirname "$0")/common.sh"
V9=bench/results/gemm-hopper-2026-12-02-v9

for s in 4096 8192; do
  bench mma mma$s "$(nn $s $s $s)" \
    "$(tc 128 256 64 64 64 3 4)" "$(tc 128 256 64 64 64 4 4)" "$(tc 256 128 64 64 64 3 4)" \
    "$(tc 128 128 32 64 64 4 8 2)" "$(tc 128 128 32 64 64 5 8 2)" "$(tc 128 128 32 64 64 6 8 2)" \
    "$(tc 256 64 32 64 64 4 8 2)" "$(tc 128 256 32 64 64 4 8)"
done

timeout 300 $B/ktune sweep $V9/reseed-sweep.json --db $OUT/reseed.db > $OUT/sweep.log 2>&1; echo "sweep rc=$? at $(el)s"
grep -E "budget reached|patience|time limit|failed" $OUT/sweep.log | grep -vE "elapsed" | tail -30 | cut -c1-160
bench_database_winners $OUT/reseed.db 1 db-top1
gpu_state
