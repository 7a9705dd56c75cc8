#!/usr/bin/env bash
# Run P (gemm v16): does the clusters' tile order decide the L2 traffic that run O found our pairs adding? At
# 512x4096x4096, 128x128 WARP_M 64, 6 stages, not persistent: no cluster, pair along M and pair along N with
# each GROUP_M of the space (1: consecutive clusters walk N, so a GPC's clusters share one A tile; 16: they walk
# M). Each configuration its own bench (verified, timed alone and in turns with cuBLAS), then one ncu launch of
# it for the L2 counters.
source "$(dirname "$0")/common.sh"
M="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,sm__cycles_active.avg"
P="$(nt 512 4096 4096)"
order_case() {  # order_case LABEL CLUSTER_M CLUSTER_N GROUP_M
  local c; c="$(v9_wgk 128 128 $2 $3 false false 6 64 true $4)"
  bench turns $1 "$P" "$c"
  timeout 90 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$P" --config "$c" --out /tmp/b/ncu-$1 > $OUT/ncu-$1.txt 2>&1
  echo "ncu $1 rc=$?"; grep -E "gpu__time|lts__t_sectors" $OUT/ncu-$1.txt | sed 's/  */ /g'
}
for g in 1 16; do order_case none-g$g 1 1 $g; done
for g in 1 4 8 16; do order_case pair-n-g$g 1 2 $g; order_case pair-m-g$g 2 1 $g; done

# The three one-file probes after moving their error check and event timing into bench/probe_timing.hpp: each
# once, to see them run and verify as before (their figures are in v12, v9 and rowwise v9).
for p in bench_tma_multicast_probe bench_launch_overhead_probe bench_rmsnorm_bulk_probe; do
  timeout 120 $B/$p > $OUT/$p.txt 2>&1; echo "$p rc=$?"; tail -4 $OUT/$p.txt
done
gpu_state
