#!/usr/bin/env bash
# Run D (gemm v18): the PERSISTENT knob of the mma.sync path, second design (the hot loop as without it; at the end
# of a tile the block loads its next tile's first stages into the ring and then stages C behind the ring). The
# every-path suite (with run C's missing STAGE_C picks) and persistent blocks walking many tiles; at 4096^3 and
# 8192^3 nn the staged winners without and with PERSISTENT, all in turns with cuBLAS, twice; a re-seed sweep with
# the persistent starts into its own database (reseed-mma-persistent-sweep.json; merged only if adopted).
source "$(dirname "$0")/common.sh"
gpu_tests 200 'GemmGpu.EveryPath*:GemmGpu.PersistentMma*' gpu-tests-runD.log
for rep in 1 2; do
  turns_case p4096-$rep "$(nn 4096 4096 4096)" "$(tcps 256 128 64 64 64 3 8 true false)" \
    "$(tcps 128 256 64 64 64 3 1 true false)" "$(tcps 256 128 64 64 64 3 8 true true)" \
    "$(tcps 128 256 64 64 64 3 1 true true)" "$(tcps 128 256 64 64 64 3 8 true true)" \
    "$(tcps 128 256 64 64 64 3 1 false true)"
  turns_case p8192-$rep "$(nn 8192 8192 8192)" "$(tcps 128 256 64 64 64 3 16 true false)" \
    "$(tcps 128 256 64 64 64 3 16 true true)" "$(tcps 256 128 64 64 64 3 8 true true)"
done
reseed reseed-mma-persistent-sweep.json D
$B/ktune db query --db $OUT/reseed-mma-runD.db --top 4 | cut -c1-400
gpu_state
