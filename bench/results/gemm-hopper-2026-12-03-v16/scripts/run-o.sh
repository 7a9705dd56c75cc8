#!/usr/bin/env bash
# Run O (gemm v16): run N found our multicast pairs reading more L2 sectors than no cluster at 512x4096x4096
# (pair along M +20%, along N +54%), where cuBLAS's pair reads 20% fewer. Which part of a pair adds them? ncu, one
# launch each, of main's pairs, run G's pairs without multicast (coupled, every block loads both tiles) and run K's
# uncoupled pairs with whole boxes (the same copies as no cluster, on bench_gemm_bench_fullbox), 128x128 WARP_M 64,
# not persistent. The L2 counters are broken down by source where this ncu has the metrics.
source "$(dirname "$0")/common.sh"
ncu --query-metrics --chip gh100 > $OUT/ncu-metrics-gh100.txt 2>&1
EXTRA=""
for m in lts__t_sectors_srcunit_tex_op_read lts__t_requests_srcunit_tex_op_read lts__t_sectors_srcunit_ltcfabric_op_read \
         lts__t_sectors_op_read_lookup_miss lts__t_sectors_srcunit_tex_op_read_lookup_hit l1tex__m_xbar2l1tex_read_bytes \
         lts__t_sectors_srcunit_tex smsp__inst_executed lts__t_sectors_op_write; do
  grep -q "^$m " $OUT/ncu-metrics-gh100.txt && EXTRA="$EXTRA,$m.sum"
done
echo "extra metrics: $EXTRA"
M="gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,sm__cycles_active.avg,dram__bytes_read.sum$EXTRA"
profile() {  # profile LABEL PROBLEM CONFIG (B and KTUNE_KERNEL_DIR from the caller)
  timeout 90 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$2" --config "$3" --out /tmp/b/ncu-$1 > $OUT/ncu-$1.txt 2>&1
  echo "ncu $1 rc=$? at $(el)s"
  grep -E "gpu__time|lts__t_sectors_op_read.sum|srcunit" $OUT/ncu-$1.txt | sed 's/  */ /g' | head -6
}
P="$(nt 512 4096 4096)"
three() {  # three PREFIX: no cluster, pair along M, pair along N
  profile $1-none "$P" "$(v9_wgk 128 128 1 1 false false 6 64 true 16)"
  profile $1-pair-m "$P" "$(v9_wgk 128 128 2 1 false false 6 64 true 16)"
  profile $1-pair-n "$P" "$(v9_wgk 128 128 1 2 false false 6 64 true 16)"
}
three main
export KTUNE_KERNEL_DIR=$(kernels_of pair_without_multicast); three nomc
export KTUNE_KERNEL_DIR=$(kernels_of pair_uncoupled_full_box)
mkdir -p /tmp/fullbox && ln -sf $PWD/$B/bench_gemm_bench_fullbox /tmp/fullbox/bench_gemm_bench
B=/tmp/fullbox three fullbox
gpu_state
