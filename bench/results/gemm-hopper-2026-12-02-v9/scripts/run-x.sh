#!/usr/bin/env bash
# Run X: does the tensor maps' L2 promotion (256 B on main) cause the multicast pairs' extra L2 reads (run W)?
# Three builds of bench_gemm_bench that differ only in CU_TENSOR_MAP_L2_PROMOTION (256B = main, 128B, NONE;
# host code: the kernel text and its hash are unchanged), in alternation, twice: 512x4096x4096 with the
# cooperative twins of run W and the database best, and 8192x4096x4096 with its database best; then ncu L2
# read sectors of the pair along N under each.
# The variants: in kernels_templated/gemm/gpu/tma_map.cpp replace CU_TENSOR_MAP_L2_PROMOTION_L2_256B by _L2_128B
# (or _NONE), build bench_gemm_bench, strip it to build-carry-lead/bin/bench_gemm_bench_p128B (_pNONE), restore.
source "$(dirname "$0")/common.sh"
P512="m=512,n=4096,k=4096,dtype=bf16,layout=nt"
P8K="m=8192,n=4096,k=4096,dtype=bf16,layout=nt"
SOLO=$(wgk 128 128 1 1 false false 6 64 true 8)
PAIR_N=$(wgk 128 128 1 2 false false 6 64 true 8)
PAIR_M=$(wgk 128 128 2 1 false false 6 64 true 8)
BEST512=$(wgk 128 128 1 1 true false 6 128 true 16)
BEST8K=$(wgk 128 256 2 1 true false 4 64 true 8)
BASE=$B
for round in 1 2; do
  for v in "" _p128B _pNONE; do
    cp $BASE/bench_gemm_bench$v /tmp/b/bench_gemm_bench_x && B=/tmp/b/bench_x_dir && mkdir -p $B && cp /tmp/b/bench_gemm_bench_x $B/bench_gemm_bench
    bench promo-$round "x512$v-$round" "$P512" "$SOLO" "$PAIR_N" "$PAIR_M" "$BEST512" | grep -v "^  BLOCK"
    bench promo-$round "x8k$v-$round" "$P8K" "$BEST8K" | grep -v "^  BLOCK"
    grep -A8 "=== x512$v-$round " $OUT/promo-$round.txt | grep -E "^  BLOCK.*TFLOP" | sed -e 's/BLOCK_K=64,//; s/,PATH=wgmma//; s/,REDUCE=workspace,SPLIT_K=1//' | cut -c1-40,100-160
    B=$BASE
  done
done
for v in "" _p128B _pNONE; do
  timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 \
    --metrics lts__t_sectors_op_read.sum,gpu__time_duration.sum $BASE/bench_gemm_bench$v --problem $P512 --config "$PAIR_N" \
    --out /tmp/b/ncu > $OUT/ncu-pairn$v-runX.txt 2>&1
  echo "ncu$v rc=$?"; grep -E "lts__t_sectors_op_read|gpu__time_duration" $OUT/ncu-pairn$v-runX.txt
done
gpu_state
