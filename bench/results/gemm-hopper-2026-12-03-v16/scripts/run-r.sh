#!/usr/bin/env bash
# Run R (gemm v16): the compiler's automatic precompiled header (028595c) on the GPU. Every GPU test, built with
# it (ktune_gpu_tests compiles every candidate it verifies through the Compiler), then `ktune tune` of one gemm
# problem (bayes, 16 evaluations, a fresh database) with the ktune built with it.
source "$(dirname "$0")/common.sh"
export KTUNE_BIN=$PWD/$B/ktune_pch
timeout 420 $B/ktune_gpu_tests > $OUT/gpu-tests-runR.log 2>&1
echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED \]|tests ran|passed" $OUT/gpu-tests-runR.log | tail -20
timeout 150 $B/ktune_pch tune --kernel gemm --problem "m=2048,n=2048,k=2048,dtype=bf16,layout=nt" --budget 16 \
  --db /tmp/b/runR.db > $OUT/tune-runR.txt 2>&1
echo "tune rc=$? at $(el)s"; tail -16 $OUT/tune-runR.txt | cut -c1-220
gpu_state
