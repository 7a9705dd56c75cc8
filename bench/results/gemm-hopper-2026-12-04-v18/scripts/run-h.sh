#!/usr/bin/env bash
# Run H (gemm v18): the whole GPU suite on the final code (0140748's kernels and host code), and issue 5's
# benchmark again (`bench_gemm_bench --suite ampere`).
source "$(dirname "$0")/common.sh"
gpu_tests 360 "" gpu-tests-runH.log 45
timeout 200 $B/bench_gemm_bench --suite ampere --out /tmp/b/ampere > $OUT/ampere-suite-runH.log 2>&1
echo "ampere suite rc=$? at $(el)s"; cp /tmp/b/ampere/gemm-bench.md $OUT/ampere-suite-runH.md; cat $OUT/ampere-suite-runH.md
gpu_state
