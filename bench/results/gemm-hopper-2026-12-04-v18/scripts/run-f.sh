#!/usr/bin/env bash
# Run F (gemm v18): the persistent mma.sync grid, third design (run D's, whose staged C rows now leave by bulk
# copies from shared memory on sm_90 without the block waiting: they drain under the next tile's main loop). The
# every-path suite and persistent blocks walking many tiles; at 4096^3 and 8192^3 nn the staged winners without and
# with PERSISTENT, all in turns with cuBLAS, twice.
source "$(dirname "$0")/common.sh"
gpu_tests 200 'GemmGpu.EveryPath*:GemmGpu.PersistentMma*' gpu-tests-runF.log
for rep in 1 2; do
  turns_case f4096-$rep "$(nn 4096 4096 4096)" "$(tcps 256 128 64 64 64 3 8 true false)" \
    "$(tcps 128 256 64 64 64 3 4 true false)" "$(tcps 256 128 64 64 64 3 8 true true)" \
    "$(tcps 128 256 64 64 64 3 4 true true)" "$(tcps 128 256 64 64 64 3 8 true true)" \
    "$(tcps 128 256 32 64 64 4 4 true true)"
  turns_case f8192-$rep "$(nn 8192 8192 8192)" "$(tcps 128 256 64 64 64 3 16 true false)" \
    "$(tcps 128 256 64 64 64 3 16 true true)" "$(tcps 256 128 64 64 64 3 8 true true)"
done
gpu_state
