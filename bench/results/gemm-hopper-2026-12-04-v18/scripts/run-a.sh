#!/usr/bin/env bash
# Run A (gemm v18): the persistent mma.sync grid (PERSISTENT knob, gemm_tc.cuh). The GPU verification of every
# path on the edge shapes plus persistent blocks walking many tiles; at 4096^3 and 8192^3 nn, v15's database
# winners against the same tiles with PERSISTENT=true (GROUP_M, stages, 256x128), every configuration verified and
# all timed in turns with cuBLAS; the re-seed of the two mma.sync problems (reseed-mma-sweep.json: those starts,
# then bayes) merged into the shipped database with the stale mma.sync results pruned; the database's two best
# per nn problem re-timed, the faster in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
gpu_tests 240 'GemmGpu.PersistentMma*:GemmGpu.EveryPath*' gpu-tests-runA.log
turns_case mma4096 "$(nn 4096 4096 4096)" "$(tcp 128 256 64 64 64 3 1 false)" "$(tcp 128 256 64 64 64 3 1 true)" \
  "$(tcp 128 256 64 64 64 3 8 true)" "$(tcp 128 256 64 64 64 3 16 true)" "$(tcp 256 128 64 64 64 3 8 true)" \
  "$(tcp 128 256 64 64 64 4 8 true)"
turns_case mma8192 "$(nn 8192 8192 8192)" "$(tcp 256 128 64 64 64 3 8 false)" "$(tcp 256 128 64 64 64 3 8 true)" \
  "$(tcp 128 256 64 64 64 3 16 true)" "$(tcp 256 128 64 64 64 4 8 true)"
reseed reseed-mma-sweep.json A
merge_reseed A
bench_key_lines table nn /tmp/b/nn-winners.txt
echo "table at $(el)s"
sqlite3 tuning_db/ktune.db "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null 2>&1
cp tuning_db/ktune.db $OUT/ktune-after-runA.db
gpu_state
