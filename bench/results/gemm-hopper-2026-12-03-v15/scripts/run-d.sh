#!/usr/bin/env bash
# Run D (gemm v15): as run C, but the prefetch goes through the load path (variants/l2_prefetch_lines.patch): every
# SPAN k-tiles the producer warp's lanes issue `prefetch.global.L2` for each 128-byte line of the tile's B rows in
# the SPAN k-tiles starting AHEAD k-tiles ahead, adjacent lanes on adjacent lines of a row. Run C's bulk prefetches
# (one `cp.async.bulk.prefetch.L2` per row) made every shape 1.3-3.5x slower. Main and four (AHEAD, SPAN)
# settings, each shape's database winner, in turns, twice; every bench verifies its configuration first.
source "$(dirname "$0")/common.sh"
VARIANTS=$PWD/$V15/variants
pf_dir() {  # pf_dir AHEAD SPAN: a patched kernel folder with those constants
  local d=/tmp/pf$1_$2
  rm -rf $d && mkdir -p $d && cp -r "$PWD/kernels_templated" $d/ &&
    patch -s -p1 -d $d/kernels_templated < $VARIANTS/l2_prefetch_lines.patch &&
    sed -i -e "s/^#define KTUNE_PF_AHEAD .*/#define KTUNE_PF_AHEAD $1/" -e "s/^#define KTUNE_PF_SPAN .*/#define KTUNE_PF_SPAN $2/" \
      $d/kernels_templated/gemm/gemm_wgmma.cuh && echo $d/kernels_templated
}
declare -A dirs=([main]=$PWD/kernels_templated)
for s in 4_4 8_4 8_8 16_8; do dirs[pf$s]=$(pf_dir ${s%_*} ${s#*_}); done
grep -c KTUNE_PF_AHEAD ${dirs[pf8_8]}/gemm/gemm_wgmma.cuh
cases() {
  bench $1 $2-128x4096x14336 "$(nt 128 4096 14336)" "$(v9_wgk 64 64 1 1 false false 13 64 true 8)"
  bench $1 $2-128x4096x11008 "$(nt 128 4096 11008)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)"
  bench $1 $2-128x11008x4096 "$(nt 128 11008 4096)" "$(v9_wgk 128 88 1 1 false false 7 64 true 8)"
  bench $1 $2-128x14336x4096 "$(nt 128 14336 4096)" "$(v9_wgk 128 112 1 1 true false 6 64 true 8)"
  bench $1 $2-128x4096x4096 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 1 1 true false 13 64 true 16)"
  bench $1 $2-512x4096x14336 "$(nt 512 4096 14336)" "$(v9_wgk 128 128 1 1 true false 6 128 true 8)"
}
for rep in 1 2; do
  for name in main pf4_4 pf8_4 pf8_8 pf16_8; do
    export KTUNE_KERNEL_DIR=${dirs[$name]}
    cases turns-$name $name$rep
  done
done
export KTUNE_KERNEL_DIR=$PWD/kernels_templated
gpu_state
