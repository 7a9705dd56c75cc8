#!/usr/bin/env bash
# Run B (gemm v19; binaries built with variants/producer_warpgroup.patch applied from the repository root,
# patch -p1): the PRODUCER knob (a copying warpgroup, per-stage mbarriers) against main's 4096^3 and 8192^3
# winners, in turns with cuBLAS; then the every-path GPU suite (edge shapes, PRODUCER picks included).
source "$(dirname "$0")/common.sh"
producer_turns
gpu_tests 300 "GemmGpu.EveryPath*" gpu-tests-runB.log 12
gpu_state
