#!/usr/bin/env bash
# Run A (gemm v22): (1) the steady state of issue 5's two mma.sync winners and of cuBLAS at 4096^3 and 8192^3 bf16
# nn, and of the wgmma winner at 4096^3 nt: each run back to back alone for 3 s, twice round, SM clock, power and
# clock-event reasons from NVML (`bench_gemm_bench --sustain-ms`); (2) two bounds on the mma.sync main loop,
# variants that give wrong results on purpose and are only timed: no copies after the prologue (no_refill) and
# no block barrier in the k-tile loop (no_barrier), against main, on the three best tiles at 4096^3 and 8192^3.
source "$(dirname "$0")/common.sh"
w4096=$(tcs 128 256 64 64 64 3 16 true)
sustain nn4096 "$(nn 4096 4096 4096)" "$w4096"
sustain nn8192 "$(nn 8192 8192 8192)" "$(tcs 128 256 64 64 64 3 16 true)"
nt4096=$($B/ktune db query --db tuning_db/ktune.db --kernel gemm --top 1 --keys | grep "layout=nt,lda=4096,ldb=4096,ldc=4096,m=4096,n=4096" | head -1 | cut -d'|' -f2)
echo "nt 4096 winner: $nt4096"
sustain nt4096 "$(nt 4096 4096 4096)" "$nt4096"
gpu_state
tiles=("$(tcs 128 256 64 64 64 3 16 true)" "$(tcs 256 128 64 64 64 3 8 true)" "$(tcs 128 256 32 64 64 4 16 true)")
for variant in main no_refill no_barrier; do
  if [ $variant = main ]; then export KTUNE_KERNEL_DIR=$PWD/kernels_templated; else export KTUNE_KERNEL_DIR=$(kernels_of $variant); fi
  for n in 4096 8192; do
    args=(); for c in "${tiles[@]}"; do args+=(--config "$c"); done
    timeout 150 $B/bench_gemm_bench --problem "$(nn $n $n $n)" "${args[@]}" > $OUT/bound-$variant-$n.txt 2>&1
    echo "$variant $n rc=$? at $(el)s"; grep -E "^  BLOCK|in turns|cuBLAS .*TFLOP|verify" $OUT/bound-$variant-$n.txt |
      sed -e 's/,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1//' | cut -c1-220
  done
done
export KTUNE_KERNEL_DIR=$PWD/kernels_templated
tar czf $OUT/bounds.tgz -C $OUT $(cd $OUT && ls bound-*.txt) && rm $OUT/bound-*.txt
gpu_state
