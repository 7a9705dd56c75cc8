#!/usr/bin/env bash
# Run D: GPU verification of the 2026-12-01 kernel changes (GemmGpu.*: the mma.sync k-step order, the wgmma
# interior epilogue, BLOCK_N in steps of 16; RowwiseGpu.*: the shared-memory rows of c51de34), then the interior epilogue A/B: the same wgmma configurations
# with the kernel text before the interior path (13f54e3^, in build-carry-lead/old, run from there: NVRTC resolves the quoted include from
# the working directory first) and the new one, each in turns with cuBLAS; then BLOCK_N = 176 / 144 tiles on the
# wave-quantized 512 x 11008 x 4096.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
timeout 420 $B/ktune_gpu_tests --gtest_filter='GemmGpu.*:RowwiseGpu.*' > $OUT/gpu-tests.log 2>&1; echo "gpu tests rc=$? at $(el)s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|configs passed" $OUT/gpu-tests.log | tail -24 | cut -c1-200
WG=( "$WINNER_4096" "$(wg 128 128 2 true true 4 128 true)" "$(wg 128 256 1 true false 4 64 true)" )
ROOT=$PWD
rm -rf /tmp/old && mkdir -p /tmp/old && cp -r build-carry-lead/old/kernels_templated /tmp/old/
for prob in m=4096,n=4096,k=64 m=4096,n=4096,k=4096 m=8192,n=8192,k=8192 m=2048,n=11008,k=4096; do
  tag=$(echo $prob | tr -d 'mnk=' | tr ',' 'x')
  bench epilogue-ab new-$tag $prob,dtype=bf16,layout=nt "${WG[@]}"
  (cd /tmp/old && B=$ROOT/$B && export KTUNE_KERNEL_DIR=/tmp/old/kernels_templated &&
   bench epilogue-ab old-$tag $prob,dtype=bf16,layout=nt "${WG[@]}")
done
bench n16 n16-512x11008 m=512,n=11008,k=4096,dtype=bf16,layout=nt "$(wg 128 176 1 true false 4 64 true)" \
  "$(wg 128 176 2 true false 4 64 true)" "$(wg 128 144 1 true false 4 64 true)" "$(wg 128 128 2 true true 4 128 true)"
gpu_state
