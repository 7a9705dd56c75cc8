#!/usr/bin/env bash
# Run C (gemm v15): L2 prefetch of B ahead of the ring (variants/l2_prefetch_b.patch). The M = 128 shapes stream
# B at ~2.8-3.0 TB/s whatever the tile (v15 §1, the database's 35-36 µs plateau at 128x11008x4096), where a copy
# reaches ~4.2: each stage reads 128 bytes of every B row, so DRAM sees short scattered pieces. In the variant
# the producer warp's lanes issue, every SPAN k-tiles, one contiguous `cp.async.bulk.prefetch.L2` per B row of
# the tile for the SPAN k-tiles starting AHEAD k-tiles ahead. Main and four (AHEAD, SPAN) settings, each shape's
# database winner, in turns, twice; every bench verifies its configuration before timing it.
source "$(dirname "$0")/common.sh"
declare -A dirs=([main]=$PWD/kernels_templated)
prefetch_variants l2_prefetch_b.patch 8_4 8_8 16_8 16_16
grep -c KTUNE_PF_AHEAD ${dirs[pf16_8]}/gemm/gemm_wgmma.cuh
small_m_turns main pf8_4 pf8_8 pf16_8 pf16_16
gpu_state
