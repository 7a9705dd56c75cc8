#!/usr/bin/env bash
# Run E (gemm v17): which clusters share a GPC's L2 request coalescer? variants/pair_spread_s.patch makes cluster
# c of a one-item-per-cluster grid take item (c mod S) x (items / S) + c / S, so clusters S apart take
# neighbouring items (S = 1 is main). At 512x4096x4096 (64 clusters) for S = 1, 2, 4, 8, 16, 32: the pair along
# N (GROUP_M 16 and 1) and the pair along M (GROUP_M 16), each verified in its bench, then one ncu launch with
# run D's LRC counters.
source "$(dirname "$0")/common.sh"
M="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__lrc2xbar_sectors_op_read.sum"
spread_kernels() {  # spread_kernels S: main's kernels with the patch, S set; prints the folder
  local d=/tmp/spread$1
  rm -rf $d && mkdir -p $d && cp -r "$PWD/kernels_templated" $d/ &&
    patch -s -p1 -d $d/kernels_templated < "$PWD/$V17/variants/pair_spread_s.patch" &&
    sed -i "s/= KTUNE_SPREAD;/= $1;/" $d/kernels_templated/gemm/gemm_wgmma.cuh && echo $d/kernels_templated
}
lrc() {  # lrc LABEL CONFIG (KTUNE_KERNEL_DIR from the caller)
  timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$(nt 512 4096 4096)" --config "$2" --out /tmp/b/lrc-$1 > $OUT/ncu-$1.txt 2>&1
  local rc=$?
  printf "%-22s rc=%d %s\n" "$1" $rc "$(grep -E "passed|FAIL|gpu__time|coalescing_achieved|coalescable|lrc2xbar" $OUT/ncu-$1.txt |
    grep -v PROF | sed -E 's/  +/ /g; s/verify .*: //; s/lrc__request_sectors_op_read_//; s/lrc__lrc2xbar_sectors_op_read.sum/to_l2/; s/gpu__time_duration.sum//' | tr '\n' ' ' | cut -c1-220)"
}
for s in 1 2 4 8 16 32; do
  (export KTUNE_KERNEL_DIR=$(spread_kernels $s)
   lrc s$s-pair-n-g16 "$(v9_wgk 128 128 1 2 false false 6 64 true 16)"
   lrc s$s-pair-n-g1 "$(v9_wgk 128 128 1 2 false false 6 64 true 1)"
   lrc s$s-pair-m-g16 "$(v9_wgk 128 128 2 1 false false 6 64 true 16)")
done
gpu_state
