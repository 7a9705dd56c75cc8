#!/usr/bin/env bash
# Run C (gemm v22; carry build-carry-lead and build-carry-tma; after run B passed): issue 5's two problems, 4096^3
# and 8192^3 bf16 nn: main's two best cp.async tiles and the same tiles fed by TMA (3 and 4 stages), each verified
# and all timed in turns with cuBLAS, under the branch's kernels and under tma_empty_barriers (whose cp.async
# kernels are the branch's: a control), twice.
source "$(dirname "$0")/common.sh"
use_tma_build
kernels_of() { tma_kernels_of "$1"; }  # in_turns' kernel folders: the branch's and its variant
in_turns tma_tiles tma tma_empty_barriers
tar czf "$OUT/turns-runC.tgz" -C "$OUT" $(cd "$OUT" && ls turns-*.txt) && rm "$OUT"/turns-*.txt
gpu_state
