#!/usr/bin/env bash
# Run S: (1) the M = 512 shapes, the database's best kind of configuration against cuBLAS's own
# (a 2-block cluster along N, A multicast; 128x168 tiles, exactly 2 waves at 512x11008); (2) mma.sync at
# 4096^3 and 8192^3 nn, one block of 8 warps (the database best) against two blocks of 4 warps per SM;
# (3) the wgmma GPU verification test with the new picks (CLUSTER_N = 2, BLOCK_N = 168).
source "$(dirname "$0")/common.sh"

# (1) M = 512: each problem's current best kind first, then cuBLAS's tile.
bench m512 a1 "$(nt 512 4096 4096)" \
  "$(wgk 128 128 1 1 true true 6 128 true 8)" \
  "$(wgk 128 128 1 2 false false 6 64 true 8)" "$(wgk 128 128 1 2 false false 6 64 false 8)" \
  "$(wgk 128 128 1 2 true true 6 128 true 8)" "$(wgk 128 128 1 2 true false 6 64 true 8)"
bench m512 a2 "$(nt 512 11008 4096)" \
  "$(wgk 128 176 1 1 true false 5 64 true 16)" \
  "$(wgk 128 168 1 1 true false 5 64 true 16)" "$(wgk 128 168 1 1 true false 5 64 true 8)" \
  "$(wgk 128 168 1 2 true false 5 64 true 8)"
bench m512 a3 "$(nt 512 4096 11008)" \
  "$(wgk 128 128 1 1 true false 7 64 false 8)" \
  "$(wgk 128 128 1 2 false false 6 64 true 8)" "$(wgk 128 128 1 2 false false 6 64 false 8)" \
  "$(wgk 128 128 1 2 true false 6 64 false 8)"
bench m512 a4 "$(nt 512 4096 14336)" \
  "$(wgk 128 128 1 1 true false 7 64 false 8)" \
  "$(wgk 128 128 1 2 false false 6 64 true 8)" "$(wgk 128 128 1 2 false false 6 64 false 8)"
bench m512 a5 "$(nt 512 14336 4096)" \
  "$(wgk 128 256 2 1 true false 4 64 true 8)" \
  "$(wgk 128 256 1 2 true false 4 64 true 8)" "$(wgk 128 128 1 2 false false 6 64 true 8)"

# (2) mma.sync nn: tc BM BN BK WM WN STAGES GROUP_M [MIN_BLOCKS]
for s in 4096 8192; do
  bench mma mma$s "$(nn $s $s $s)" \
    "$(tc 128 256 64 64 64 3 4)" "$(tc 128 256 64 64 64 4 4)" "$(tc 256 128 64 64 64 3 4)" \
    "$(tc 128 128 64 64 64 3 8 2)" "$(tc 128 128 32 64 64 4 8 2)" "$(tc 128 128 32 64 64 5 8 2)" \
    "$(tc 128 128 64 64 64 2 8 2)"
done
gpu_state

# (3) verification of the new kernel text (about 320 s)
timeout 420 $B/ktune_gpu_tests --gtest_filter='GemmGpu.WgmmaPathMatchesCublasOnEdgeShapes' > $OUT/gpu-tests-wgmma-runS.log 2>&1
echo "wgmma gpu test rc=$? at $(el)s"
grep -E "configs passed|FAIL|OK \]" $OUT/gpu-tests-wgmma-runS.log | head -20
