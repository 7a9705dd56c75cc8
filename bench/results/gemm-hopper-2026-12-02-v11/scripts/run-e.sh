#!/usr/bin/env bash
# Run E (gemm v11): the synchronization instructions in the SASS of the 512x4096x4096 kernels of v9 §3
# (128x128, 6 stages, staged C, cooperative): no cluster, a pair along M, a pair along N. The cubins were
# compiled with nvcc from main's gemm_wgmma.cuh (the pingpong hand-off barrier ids written as literals, which
# nvcc needs and NVRTC does not; the cooperative path is the same text) into build-carry-lead/sass/.
source "$(dirname "$0")/common.sh"
for v in none pairm pairn; do
  sass_sync_lines build-carry-lead/sass/$v.cubin > $OUT/sass-sync-$v.txt
  cuobjdump -sass build-carry-lead/sass/$v.cubin > $OUT/sass-$v.txt
  echo "$v: $(wc -l < $OUT/sass-$v.txt) SASS lines, $(wc -l < $OUT/sass-sync-$v.txt) sync lines"
done
