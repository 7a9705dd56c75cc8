#!/usr/bin/env bash
# Run F (gemm v11): the clusters' two MEMBAR.ALL.GPU (run E: from the release-semantics cluster barriers at
# start and exit) against variants/gemm_wgmma_tail.patch: a relaxed cluster arrive after the barrier init
# (fence.mbarrier_init already releases it) and, instead of the exit barrier, a producer tail that waits
# until every stage's last filling was released by all consumers of the cluster. Main's text and the
# variant (a copy of kernels_templated on the H200) in turns, same configurations; the bench verifies each
# run's winner.
source "$(dirname "$0")/common.sh"
K=$PWD/kernels_templated
TAIL=$(variant_kernels gemm_wgmma_tail) || exit 1
PAIRN=$(v9_wgk 128 128 1 2 false false 6 64 true 8)   # cuBLAS's tile and cluster at M = 512 (v9 §3)
PAIRM=$(v9_wgk 128 128 2 1 false false 6 64 true 8)
PAIRNP=$(v9_wgk 128 128 1 2 true false 6 64 true 8)
C2=$(v9_wgk 128 256 2 1 true false 4 64 true 8)
C512B=$(v9_wgk 128 256 2 1 true false 4 64 true 8)     # v9's winner at 512x14336x4096 (the same key as C2)
for rep in 1 2; do
  for variant in main tail; do
    case $variant in main) export KTUNE_KERNEL_DIR=$K ;; tail) export KTUNE_KERNEL_DIR=$TAIL ;; esac
    bench tail-$variant $variant$rep-512x4096x4096 "$(nt 512 4096 4096)" "$PAIRN" "$PAIRM" "$PAIRNP"
    bench tail-$variant $variant$rep-512x14336x4096 "$(nt 512 14336 4096)" "$C512B"
    bench tail-$variant $variant$rep-8192x4096x4096 "$(nt 8192 4096 4096)" "$C2"
  done
done
gpu_state
