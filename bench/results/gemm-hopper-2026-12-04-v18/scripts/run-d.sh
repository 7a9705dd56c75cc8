#!/usr/bin/env bash
# Run D (gemm v18): the PERSISTENT knob of the mma.sync path, second design (the hot loop as without it; at the end
# of a tile the block loads its next tile's first stages into the ring and then stages C behind the ring). The
# every-path suite (with run C's missing STAGE_C picks) and persistent blocks walking many tiles; at 4096^3 and
# 8192^3 nn the staged winners without and with PERSISTENT, all in turns with cuBLAS, twice; a re-seed sweep with
# the persistent starts into its own database (reseed-mma-persistent-sweep.json; merged only if adopted).
source "$(dirname "$0")/common.sh"
timeout 200 $B/ktune_gpu_tests --gtest_filter='GemmGpu.EveryPath*:GemmGpu.PersistentMma*' > $OUT/gpu-tests-runD.log 2>&1
echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  |configs passed|^FAIL" $OUT/gpu-tests-runD.log | tail -16 | cut -c1-220
for rep in 1 2; do
  turns_case p4096-$rep "$(nn 4096 4096 4096)" "$(tcps 256 128 64 64 64 3 8 true false)" \
    "$(tcps 128 256 64 64 64 3 1 true false)" "$(tcps 256 128 64 64 64 3 8 true true)" \
    "$(tcps 128 256 64 64 64 3 1 true true)" "$(tcps 128 256 64 64 64 3 8 true true)" \
    "$(tcps 128 256 64 64 64 3 1 false true)"
  turns_case p8192-$rep "$(nn 8192 8192 8192)" "$(tcps 128 256 64 64 64 3 16 true false)" \
    "$(tcps 128 256 64 64 64 3 16 true true)" "$(tcps 256 128 64 64 64 3 8 true true)"
done
timeout 150 $B/ktune sweep $V18/reseed-mma-persistent-sweep.json --db $OUT/reseed-mma-runD.db > $OUT/sweep-runD.log 2>&1
echo "sweep rc=$? at $(el)s"; grep -E "budget reached|failed" $OUT/sweep-runD.log | tail -3 | cut -c1-200
$B/ktune db query --db $OUT/reseed-mma-runD.db --top 4 | cut -c1-400
gpu_state
