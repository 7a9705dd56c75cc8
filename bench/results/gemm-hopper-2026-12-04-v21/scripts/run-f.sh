#!/usr/bin/env bash
# Run F (gemm v21): the whole GPU suite on the session's final code (the compiler's kernel_dir option, the
# cubin comparison and rehash, no kernel change).
source "$(dirname "$0")/common.sh"
gpu_tests 400 "" gpu-tests-runF.log 45
gpu_state
