#!/usr/bin/env bash
# Run J (gemm v11): items in SM-id order. Run I found that a persistent grid without clusters places
# consecutive blocks on SMs of different GPCs, while clusters of two fill SM ids in order.
# variants/gemm_wgmma_smid_order.patch hands a non-clustered persistent block of a 132-block grid the items
# of its %smid instead of its blockIdx (a bijection there: one block per SM, ids 0-131), so the tiles that
# share panels under GROUP_M run on neighbouring SMs. Main and the variant in turns, twice; each run's
# winner is verified; ncu L2 counters of both at 8192x14336x4096.
source "$(dirname "$0")/common.sh"
K=$PWD/kernels_templated
SMID=$(variant_kernels gemm_wgmma_smid_order) || exit 1
G4=$(v9_wgk 128 256 1 1 true false 4 64 true 4)
G8=$(v9_wgk 128 256 1 1 true false 4 64 true 8)
G16=$(v9_wgk 128 256 1 1 true false 4 64 true 16)
for rep in 1 2; do
  for variant in main smid; do
    case $variant in main) export KTUNE_KERNEL_DIR=$K ;; smid) export KTUNE_KERNEL_DIR=$SMID ;; esac
    bench order-$variant $variant$rep-8192x14336x4096 "$(nt 8192 14336 4096)" "$G4" "$G8" "$G16"
    bench order-$variant $variant$rep-8192x4096x4096 "$(nt 8192 4096 4096)" "$G4" "$G8" "$G16"
    bench order-$variant $variant$rep-2048x4096x4096 "$(nt 2048 4096 4096)" "$G8"
  done
done
M="gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum"
for variant in main smid; do
  case $variant in main) export KTUNE_KERNEL_DIR=$K ;; smid) export KTUNE_KERNEL_DIR=$SMID ;; esac
  timeout 90 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$(nt 8192 14336 4096)" --config "$G8" --out /tmp/b/ncu-$variant > $OUT/ncu-order-$variant-runJ.txt 2>&1
  echo "ncu $variant rc=$?"; grep -E "gpu__|lts__|dram__" $OUT/ncu-order-$variant-runJ.txt
done
gpu_state
