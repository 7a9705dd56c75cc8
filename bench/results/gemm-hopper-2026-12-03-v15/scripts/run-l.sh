#!/usr/bin/env bash
# Run L (gemm v15): runs I-K put 1.8-5.4% on launching as clusters, with the tiles and copies unchanged. A
# cluster launch fills one GPC's SMs after another (v11 run I), so consecutive clusters and the neighbouring
# tiles they take share a GPC; without clusters, consecutive blocks go to different GPCs.
# variants/pair_spread_items.patch spreads a one-item-per-cluster grid the same way (cluster c takes item
# (c mod 8) * (items / 8) + c / 8). 512x4096x4096 only (64 clusters, one item each). Each configuration is its
# own bench, so each is verified before it is timed in turns with cuBLAS; main and the variant in turns, twice.
source "$(dirname "$0")/common.sh"
spread_cases() {
  bench $1 $2-none "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 false false 6 128 true 16)"
  bench $1 $2-pair-m "$(nt 512 4096 4096)" "$(v9_wgk 128 128 2 1 false false 6 128 true 16)"
  bench $1 $2-pair-n "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 2 false false 6 128 true 16)"
}
in_turns spread_cases main pair_spread_items
gpu_state
