#!/usr/bin/env bash
# Run S (gemm v16): does cuBLAS's pair at 512x4096x4096 deliver the same bytes to its SMs as ours, reading fewer
# of them from the L2 (a better-shared multicast), or does it deliver fewer (the pair sharing through distributed
# shared memory instead)? ncu, one launch each, run O's metrics, of cuBLAS's kernel and of our no-cluster kernel.
source "$(dirname "$0")/common.sh"
M="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,lts__t_sectors_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,dram__bytes_read.sum,sm__cycles_active.avg,smsp__inst_executed.sum"
P="$(nt 512 4096 4096)"
C="$(v9_wgk 128 128 1 1 false false 6 64 true 16)"
[ "${1:-}" = spread ] || for who in cublas ours; do
  k="regex:gemm_wgmma"; [ $who = cublas ] && k="regex:nvjet|xmma|cutlass|sm90_"
  timeout 90 ncu --clock-control none -k "$k" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$P" --config "$C" --out /tmp/b/ncu-s-$who > $OUT/ncu-$who.txt 2>&1
  echo "ncu $who rc=$?"; grep -E "nvjet|gemm_wgmma<|__" $OUT/ncu-$who.txt | grep -v "==PROF" | sed 's/  */ /g' | cut -c1-110
done
# Second call, a minute later (files ncu-spread-*.txt): our pairs with run L's spread items, the same metrics but
# the hit and byte counters trimmed.
if [ "${1:-}" = spread ]; then
  export KTUNE_KERNEL_DIR=$(kernels_of pair_spread_items)
  M="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,smsp__inst_executed.sum"
  for k in "pair-n:1 2" "pair-m:2 1"; do
    n=${k%%:*}; cm=${k#*:}
    timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --metrics $M \
      $B/bench_gemm_bench --problem "$P" --config "$(v9_wgk 128 128 $cm false false 6 64 true 16)" \
      --out /tmp/b/t-$n > $OUT/ncu-spread-$n.txt 2>&1
    echo "$n rc=$?"
  done
fi
