#!/usr/bin/env bash
# Run E: the tuning database on the current kernel text. The 2026-12-01 edits changed the wgmma and mma.sync
# template hashes, so every shipped result is stale: re-tune each shipped problem from its own stale bests plus
# the seeded sweeps' starts (reseed-sweep.json, made by make-reseed-sweep.py), then re-time each problem's two
# best configurations, the winner in turns with cuBLAS.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V7=bench/results/gemm-hopper-2026-12-01-v7
timeout 330 $B/ktune sweep $V7/reseed-sweep.json --db $OUT/reseed.db > $OUT/sweep.log 2>&1; echo "sweep rc=$? at $(el)s"
grep -E "budget reached|patience|time limit|failed" $OUT/sweep.log | grep -vE "elapsed" | tail -30 | cut -c1-160
bench_database_winners $OUT/reseed.db 2 db-top2
gpu_state
