#!/usr/bin/env bash
# Run F (gemm v17): (1, first call: `bench_gpc_probe > $OUT/gpc-probe.txt`, bench/gpc_probe.cu) which SMs share a GPC (clusters of 16, 8, 4 on the
# SMs of one GPC each) and where our plain and 2-block launches put their blocks (gpc-probe.txt). (2) From it,
# variants/pair_items_by_gpc.patch: the 64 pairs of 512x4096x4096 (pair along N, GROUP_M 16) take their items
# by the TPC they landed on, so that a GPC's clusters share the B tiles. Main and the variant: verified, LRC
# counters (one ncu launch each), then each in turns with cuBLAS, twice.
source "$(dirname "$0")/common.sh"
M="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__lrc2xbar_sectors_op_read.sum"
PAIR_N=$(v9_wgk 128 128 1 2 false false 6 64 true 16)
lrc() {  # lrc LABEL (KTUNE_KERNEL_DIR from the caller)
  timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$(nt 512 4096 4096)" --config "$PAIR_N" --out /tmp/b/lrc-$1 > $OUT/ncu-$1.txt 2>&1
  echo "== $1 rc=$?"; grep -E "passed|FAIL|__" $OUT/ncu-$1.txt | grep -v PROF | sed 's/  */ /g' | cut -c1-120
}
GPC_KERNELS=$(VARIANTS=$PWD/$V17/variants variant_kernels pair_items_by_gpc) || exit 1
lrc main
(export KTUNE_KERNEL_DIR=$GPC_KERNELS; lrc by-gpc)
for rep in 1 2; do
  bench turns-main main$rep "$(nt 512 4096 4096)" "$PAIR_N"
  (export KTUNE_KERNEL_DIR=$GPC_KERNELS; bench turns-by-gpc by-gpc$rep "$(nt 512 4096 4096)" "$PAIR_N")
done
gpu_state
