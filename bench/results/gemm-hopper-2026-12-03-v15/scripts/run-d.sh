#!/usr/bin/env bash
# Run D (gemm v15): as run C, but the prefetch goes through the load path (variants/l2_prefetch_lines.patch): every
# SPAN k-tiles the producer warp's lanes issue `prefetch.global.L2` for each 128-byte line of the tile's B rows in
# the SPAN k-tiles starting AHEAD k-tiles ahead, adjacent lanes on adjacent lines of a row. Run C's bulk prefetches
# (one `cp.async.bulk.prefetch.L2` per row) made every shape 1.3-3.5x slower. Main and four (AHEAD, SPAN)
# settings, each shape's database winner, in turns, twice; every bench verifies its configuration first.
source "$(dirname "$0")/common.sh"
pf() { patched_kernels pf$1_$2 l2_prefetch_lines.patch "s/^#define KTUNE_PF_AHEAD .*/#define KTUNE_PF_AHEAD $1/; s/^#define KTUNE_PF_SPAN .*/#define KTUNE_PF_SPAN $2/"; }
declare -A dirs=([main]=$PWD/kernels_templated)
for s in 4_4 8_4 8_8 16_8; do dirs[pf$s]=$(pf ${s%_*} ${s#*_}); done
grep -c KTUNE_PF_AHEAD ${dirs[pf8_8]}/gemm/gemm_wgmma.cuh
small_m_turns main pf4_4 pf8_4 pf8_8 pf16_8
gpu_state
