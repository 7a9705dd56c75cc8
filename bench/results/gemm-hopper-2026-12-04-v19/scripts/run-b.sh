#!/usr/bin/env bash
# Run B (gemm v19; binaries built with variants/producer_warpgroup.patch applied from the repository root,
# patch -p1): the PRODUCER knob (a copying warpgroup, per-stage mbarriers) against main's 4096^3 and 8192^3
# winners, in turns with cuBLAS; then the every-path GPU suite (edge shapes, PRODUCER picks included).
source "$(dirname "$0")/common.sh"
for n in 4096 8192; do
  turns_case p$n "$(nn $n $n $n)" "$(tcw 256 128 64 64 64 3 8 true false)" "$(tcw 128 256 64 64 64 3 16 true false)" \
    "$(tcw 256 128 64 64 64 3 8 true true)" "$(tcw 256 128 64 64 64 4 8 true true)" \
    "$(tcw 128 256 64 64 64 3 16 true true)" "$(tcw 128 256 64 64 64 4 16 true true)" \
    "$(tcw 128 256 32 64 64 4 16 true true)" "$(tcw 128 256 32 64 64 6 16 true true)"
done
gpu_tests 300 "GemmGpu.EveryPath*" gpu-tests-runB.log 12
gpu_state
