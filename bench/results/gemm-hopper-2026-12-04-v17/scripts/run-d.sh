#!/usr/bin/env bash
# Run D (gemm v17): the L2 request coalescers (LRC) of run C at more orders and shapes. One ncu launch each (the
# sixth of the process): the pair along N with GROUP_M 1 and 4 and with v15's spread items
# (pair_spread_items.patch: cluster c takes item (c mod 8) x (items / 8) + c / 8); at 2048x4096x4096 the
# database's pair along M, the same tile without a cluster, and cuBLAS; at 8192x4096x4096 the no-cluster winner,
# its pair along M, and cuBLAS.
source "$(dirname "$0")/common.sh"
M="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__lrc2xbar_sectors_op_read.sum,lrc__lrc2xbar_sectors_op_read_coalescing_achieved_type_programmatic.sum"
lrc() {  # lrc LABEL KERNEL_REGEX PROBLEM CONFIG (KTUNE_KERNEL_DIR from the caller)
  timeout 90 ncu --clock-control none -k "regex:$2" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$3" --config "$4" --out /tmp/b/lrc-$1 > $OUT/ncu-lrc-$1.txt 2>&1
  echo "== $1 rc=$?"; grep -E "__|passed|FAIL" $OUT/ncu-lrc-$1.txt | grep -v PROF | sed 's/  */ /g' | cut -c1-110
}
P512=$(nt 512 4096 4096); P2048=$(nt 2048 4096 4096); P8192=$(nt 8192 4096 4096)
lrc pair-n-group1 gemm_wgmma "$P512" "$(v9_wgk 128 128 1 2 false false 6 64 true 1)"
lrc pair-n-group4 gemm_wgmma "$P512" "$(v9_wgk 128 128 1 2 false false 6 64 true 4)"
(export KTUNE_KERNEL_DIR=$(VARIANTS=$PWD/bench/results/gemm-hopper-2026-12-03-v15/variants variant_kernels pair_spread_items)
 lrc pair-n-spread gemm_wgmma "$P512" "$(v9_wgk 128 128 1 2 false false 6 64 true 16)")
lrc 2048-pair-m gemm_wgmma "$P2048" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
lrc 2048-no-cluster gemm_wgmma "$P2048" "$(v9_wgk 128 256 1 1 true false 4 64 true 8)"
lrc 2048-cublas nvjet "$P2048" "$(v9_wgk 128 256 1 1 true false 4 64 true 8)"
lrc 8192-no-cluster gemm_wgmma "$P8192" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)"
lrc 8192-pair-m gemm_wgmma "$P8192" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
lrc 8192-cublas nvjet "$P8192" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)"
gpu_state
