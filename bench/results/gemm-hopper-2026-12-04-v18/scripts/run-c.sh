#!/usr/bin/env bash
# Run C (gemm v18): the STAGE_C knob of the mma.sync path (C through shared memory, 16-byte row segments). The
# whole GPU suite; at 4096^3 and 8192^3 nn the database winners' tiles without and with STAGE_C, every
# configuration verified and all timed in turns with cuBLAS, twice; the re-seed of the two mma.sync problems
# (reseed-mma-sweep.json) merged into the shipped database with the stale mma.sync results pruned; the database's
# two best per nn problem re-timed, the faster in turns with cuBLAS, twice.
source "$(dirname "$0")/common.sh"
timeout 330 $B/ktune_gpu_tests > $OUT/gpu-tests-runC.log 2>&1
echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  |configs passed|^FAIL" $OUT/gpu-tests-runC.log | tail -40 | cut -c1-220
for rep in 1 2; do
  turns_case mma4096-$rep "$(nn 4096 4096 4096)" "$(tcs 128 256 64 64 64 3 1 false)" "$(tcs 128 256 64 64 64 3 1 true)" \
    "$(tcs 128 256 64 64 64 3 8 true)" "$(tcs 256 128 64 64 64 3 8 true)"
  turns_case mma8192-$rep "$(nn 8192 8192 8192)" "$(tcs 128 256 64 64 64 3 16 false)" "$(tcs 128 256 64 64 64 3 16 true)" \
    "$(tcs 256 128 64 64 64 3 8 false)" "$(tcs 256 128 64 64 64 3 8 true)"
done
timeout 150 $B/ktune sweep $V18/reseed-mma-sweep.json --db $OUT/reseed-mma-runC.db > $OUT/sweep-runC.log 2>&1
echo "sweep rc=$? at $(el)s"; grep -E "budget reached|failed" $OUT/sweep-runC.log | tail -3 | cut -c1-200
$B/ktune db merge $OUT/reseed-mma-runC.db -o tuning_db/ktune.db | tail -1
$B/ktune db prune --stale --kernel gemm --db tuning_db/ktune.db | tail -1
$B/ktune db query --db tuning_db/ktune.db --top 2 --keys | grep "layout=nn" > /tmp/b/nn-winners.txt
for rep in 1 2; do bench_key_lines table-$rep nn$rep- /tmp/b/nn-winners.txt; done
echo "table at $(el)s"
mkdir -p $OUT/db-after-runC; cp tuning_db/ktune.db* $OUT/db-after-runC/
gpu_state
