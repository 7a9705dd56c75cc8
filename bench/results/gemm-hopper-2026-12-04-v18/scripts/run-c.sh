#!/usr/bin/env bash
# Run C (gemm v18): the STAGE_C knob of the mma.sync path (C through shared memory, 16-byte row segments). The
# whole GPU suite; at 4096^3 and 8192^3 nn the database winners' tiles without and with STAGE_C, every
# configuration verified and all timed in turns with cuBLAS, twice; the re-seed of the two mma.sync problems
# (reseed-mma-sweep.json) merged into the shipped database with the stale mma.sync results pruned; the database's
# two best per nn problem re-timed, the faster in turns with cuBLAS, twice.
source "$(dirname "$0")/common.sh"
gpu_tests 330 "" gpu-tests-runC.log 40
for rep in 1 2; do
  turns_case mma4096-$rep "$(nn 4096 4096 4096)" "$(tcs 128 256 64 64 64 3 1 false)" "$(tcs 128 256 64 64 64 3 1 true)" \
    "$(tcs 128 256 64 64 64 3 8 true)" "$(tcs 256 128 64 64 64 3 8 true)"
  turns_case mma8192-$rep "$(nn 8192 8192 8192)" "$(tcs 128 256 64 64 64 3 16 false)" "$(tcs 128 256 64 64 64 3 16 true)" \
    "$(tcs 256 128 64 64 64 3 8 false)" "$(tcs 256 128 64 64 64 3 8 true)"
done
reseed reseed-mma-sweep.json C
merge_reseed C
for rep in 1 2; do bench_key_lines table-$rep nn$rep- /tmp/b/nn-winners.txt; done
echo "table at $(el)s"
mkdir -p $OUT/db-after-runC; cp tuning_db/ktune.db* $OUT/db-after-runC/
gpu_state
