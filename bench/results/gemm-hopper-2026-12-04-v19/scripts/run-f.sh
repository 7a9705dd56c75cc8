#!/usr/bin/env bash
# Run F (gemm v19): main after the block-work helper (gemm_block_work.cuh, shared by the SIMT and mma.sync
# kernels) and the staged epilogue's dropped cp.async wait. The whole GPU suite; issue 5's benchmark
# (`bench_gemm_bench --suite ampere`); the re-seed of the two mma.sync problems (reseed-mma-sweep.json) into its own
# database; its two best per problem re-timed, the faster in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
gpu_tests 400 "" gpu-tests-runF.log 45
ampere_suite F
reseed_and_time reseed-mma-sweep.json F
gpu_state
