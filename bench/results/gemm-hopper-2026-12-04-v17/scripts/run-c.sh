#!/usr/bin/env bash
# Run C (gemm v17): is it the GPCs' L2 request coalescers? Without clusters the L2 reads 147 MB to deliver
# 268 MB at 512x4096x4096 (v16 §4): requests for the same sectors from blocks of one GPC seem merged before the
# L2. Hopper's GPCs have an L2 request coalescer (LRC); ncu counts its traffic (lrc__*). (1) the LRC metrics
# this ncu knows; (2) them and the L2's sector counts for our no-cluster kernel, our two pairs and cuBLAS at
# 512x4096x4096 (one ncu launch each, the sixth of the process).
source "$(dirname "$0")/common.sh"
ncu --query-metrics --chip gh100 > $OUT/ncu-metrics-gh100.txt 2>&1
grep -iE "^lrc" $OUT/ncu-metrics-gh100.txt | cut -c1-160
LRC=$(awk '/^lrc__/{print $1".sum"}' $OUT/ncu-metrics-gh100.txt | head -24 | paste -sd, -)
M="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum${LRC:+,$LRC}"
lrc() {  # lrc LABEL KERNEL_REGEX CONFIG
  timeout 90 ncu --clock-control none -k "regex:$2" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$(nt 512 4096 4096)" --config "$3" --out /tmp/b/lrc-$1 > $OUT/ncu-lrc-$1.txt 2>&1
  echo "== $1 rc=$?"; grep -E "__" $OUT/ncu-lrc-$1.txt | grep -v PROF | sed 's/  */ /g' | cut -c1-110
}
lrc no-cluster gemm_wgmma "$(v9_wgk 128 128 1 1 false false 6 64 true 16)"
lrc pair-n gemm_wgmma "$(v9_wgk 128 128 1 2 false false 6 64 true 16)"
lrc pair-m gemm_wgmma "$(v9_wgk 128 128 2 1 false false 6 64 true 16)"
lrc pair-m-group1 gemm_wgmma "$(v9_wgk 128 128 2 1 false false 6 64 true 1)"
lrc cublas nvjet "$(v9_wgk 128 128 1 1 false false 6 64 true 16)"
gpu_state
