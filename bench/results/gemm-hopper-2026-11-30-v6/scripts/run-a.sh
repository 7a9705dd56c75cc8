#!/usr/bin/env bash
# Run A: the CTA-scope cluster stage release (wgmma) and the mma.sync per-lane fragment offsets; exact
# timings, the fences of the release in SASS (nvcc-compiled cubins of both header versions in
# build-carry-lead/sass/), then GemmGpu.* verification.
source "$(dirname "$0")/common.sh"
bench wg4096 wg4096 m=4096,n=4096,k=4096,dtype=bf16,layout=nt "$(wg 128 128 1 true true 6 128)" "$(wg 128 128 2 true true 6 128)" \
  "$(wg 128 256 1 true false 4 64)" "$(wg 128 256 2 true false 4 64)" "$(wg 128 256 2 false false 4 64)" "$(wg 128 224 2 false false 4 64)"
bench wg8192 wg8192 m=8192,n=8192,k=8192,dtype=bf16,layout=nt "$(wg 128 224 1 false false 4 64)" "$(wg 128 224 2 false false 4 64)" \
  "$(wg 128 256 2 true false 4 64)" "$(wg 128 128 2 true true 6 128)"
bench wg8192x14336 wg8192x14336 m=8192,n=14336,k=4096,dtype=bf16,layout=nt "$(wg 128 128 1 true true 6 128)" \
  "$(wg 128 128 2 true true 6 128)" "$(wg 128 256 2 true false 4 64)"
MMA=( "$(tc 128 128 32 64 64 4 8)" "$(tc 128 128 32 64 64 3 8)" "$(tc 128 128 32 64 64 5 8)" "$(tc 128 128 32 64 64 4 8 2)"
      "$(tc 128 256 32 64 64 4 8)" "$(tc 128 256 32 64 64 3 8)" "$(tc 256 128 32 64 64 4 8)" "$(tc 128 128 32 32 64 4 8)"
      "$(tc 128 128 64 32 64 3 8)" "$(tc 128 128 16 64 64 6 8)" "$(tc 128 256 32 64 64 4 16)" )
bench mma4096 mma4096 m=4096,n=4096,k=4096,dtype=bf16,layout=nn "${MMA[@]}"
bench mma8192 mma8192 m=8192,n=8192,k=8192,dtype=bf16,layout=nn "${MMA[@]}"
for v in old new; do sass_sync_lines build-carry-lead/sass/pp-cluster2-$v.cubin > $OUT/sass-sync-$v.txt; done
diff $OUT/sass-sync-old.txt $OUT/sass-sync-new.txt | head -30
timeout 300 $B/ktune_gpu_tests --gtest_filter='GemmGpu.*' > $OUT/gemm-gpu-tests.log 2>&1; echo "GemmGpu rc=$? at $(el)s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|configs passed" $OUT/gemm-gpu-tests.log | tail -12 | cut -c1-220
gpu_state
