#!/usr/bin/env bash
# Run A (gemm v14): the staged epilogue through TMA tensor stores (branch wip/tma-store-epilogue: two staging
# buffers per consumer warp, a full 16 x 128-byte pass leaves as one cp.async.bulk.tensor store that the warp
# does not wait for) against main's (c9fe4a4's) warp stores. Needs, carried in build-carry-lead: bin/ (main's
# binaries), bin-tma/ (the branch's: the kernel takes a third tensor map) and kernels-main/kernels_templated
# (main's kernel text), and lib/ (libtbb and the other shared libraries the binaries need; the first call
# of run A left it out and failed to load libtbb.so.12); run from the branch's checkout (now: commit 1d1a95b), whose kernels_templated is the variant's. To make them:
#   (on main, built) strip --strip-debug -o build-carry-lead/bin/X build/bin/X  for ktune, bench_gemm_bench
#   (on this branch, built) the same into build-carry-lead/bin-tma/
#   git archive main kernels_templated | tar -x -C build-carry-lead/kernels-main
# 1. Edge and mixed cases, verified: tiles cut by M and N (interior and edge tiles in one launch), fp32 C,
#    a partial last pass (BN 176), pingpong, beta != 0, a cluster pair.
# 2. Timing: v13's staged_cases (five shapes with their shipped tiles), main and the branch in turns, twice.
source bench/results/gemm-hopper-2026-12-02-v13/scripts/common.sh
MAIN_B=build-carry-lead/bin; MAIN_K=$PWD/build-carry-lead/kernels-main/kernels_templated
TMA_B=build-carry-lead/bin-tma; TMA_K=$PWD/kernels_templated
use() { if [ "$1" = main ]; then B=$MAIN_B; export KTUNE_KERNEL_DIR=$MAIN_K; else B=$TMA_B; export KTUNE_KERNEL_DIR=$TMA_K; fi; }
use tma
bench edges tma-edge-1000 "m=1000,n=1000,k=512,dtype=bf16,layout=nt" "$(v9_wgk 128 128 1 1 true false 4 64 true 8)"
bench edges tma-edge-f32 "m=1000,n=1000,k=512,dtype=bf16,layout=nt,out=fp32" "$(v9_wgk 128 128 1 1 true false 4 64 true 8)"
bench edges tma-edge-176 "m=512,n=11008,k=4096,dtype=bf16,layout=nt" "$(v9_wgk 128 176 1 1 true false 5 64 true 8)"
bench edges tma-edge-pp "m=2000,n=1000,k=1000,dtype=fp16,layout=nt" "$(v9_wgk 128 128 1 1 true true 6 128 true 8)"
bench edges tma-edge-beta "m=1000,n=1000,k=512,dtype=bf16,layout=nt,beta=0.5,epilogue=bias_gelu" "$(v9_wgk 128 128 1 1 true false 4 64 true 8)"
bench edges tma-edge-pair "m=1000,n=1000,k=512,dtype=bf16,layout=nt" "$(v9_wgk 128 128 2 1 true false 4 64 true 8)"
bench edges tma-edge-f32big "m=4096,n=4096,k=512,dtype=bf16,layout=nt,out=fp32" "$(v9_wgk 128 256 1 1 true false 3 64 true 8)"
grep -cE "verify .*passed" $OUT/edges.txt; grep -E "verify .*(FAIL|fail)|error" $OUT/edges.txt | head
for rep in 1 2; do
  for name in main tma; do use $name; staged_cases turns-$name $name$rep; done
done
gpu_state
