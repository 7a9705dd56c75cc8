#!/usr/bin/env bash
# Run D (gemm v15): as run C, but the prefetch goes through the load path (variants/l2_prefetch_lines.patch): every
# SPAN k-tiles the producer warp's lanes issue `prefetch.global.L2` for each 128-byte line of the tile's B rows in
# the SPAN k-tiles starting AHEAD k-tiles ahead, adjacent lanes on adjacent lines of a row. Run C's bulk prefetches
# (one `cp.async.bulk.prefetch.L2` per row) made every shape 1.2-3.5x slower. Main and four (AHEAD, SPAN)
# settings, each shape's database winner, in turns, twice; every bench verifies its configuration first.
source "$(dirname "$0")/common.sh"
declare -A dirs=([main]=$PWD/kernels_templated)
prefetch_variants l2_prefetch_lines.patch 4_4 8_4 8_8 16_8
grep -c KTUNE_PF_AHEAD ${dirs[pf8_8]}/gemm/gemm_wgmma.cuh
small_m_turns main pf4_4 pf8_4 pf8_8 pf16_8
gpu_state
