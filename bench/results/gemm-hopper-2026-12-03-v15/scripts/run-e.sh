#!/usr/bin/env bash
# Run E (gemm v15): batched producer issue (variants/batched_issue.patch). The producer waits until KTUNE_BATCH
# consecutive stages are free, then issues their copies back to back, so that each B row's 128-byte pieces of
# BATCH k-tiles reach DRAM close in time instead of one k-tile apart. BATCH 2, 4 and 8 against main. Also
# `pfoff`, a control for runs C and D: run D's kernel with its prefetch never issued (AHEAD beyond any K), which
# times the producer loop run by the whole warp with a __syncwarp per k-tile. Each shape's database winner, in
# turns, twice; every bench verifies its configuration first.
source "$(dirname "$0")/common.sh"
VARIANTS=$PWD/$V15/variants
patched() {  # patched NAME PATCH SED: a patched kernel folder, the sed script applied to gemm_wgmma.cuh
  local d=/tmp/$1
  rm -rf $d && mkdir -p $d && cp -r "$PWD/kernels_templated" $d/ && patch -s -p1 -d $d/kernels_templated < $VARIANTS/$2 &&
    sed -i -e "$3" $d/kernels_templated/gemm/gemm_wgmma.cuh && echo $d/kernels_templated
}
declare -A dirs=([main]=$PWD/kernels_templated)
for b in 2 4 8; do dirs[batch$b]=$(patched batch$b batched_issue.patch "s/^#define KTUNE_BATCH .*/#define KTUNE_BATCH $b/"); done
dirs[pfoff]=$(patched pfoff l2_prefetch_lines.patch "s/^#define KTUNE_PF_AHEAD .*/#define KTUNE_PF_AHEAD 1000000/")
grep -h "define KTUNE" ${dirs[batch8]}/gemm/gemm_wgmma.cuh ${dirs[pfoff]}/gemm/gemm_wgmma.cuh
cases() {
  bench $1 $2-128x4096x14336 "$(nt 128 4096 14336)" "$(v9_wgk 64 64 1 1 false false 13 64 true 8)"
  bench $1 $2-128x4096x11008 "$(nt 128 4096 11008)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)"
  bench $1 $2-128x11008x4096 "$(nt 128 11008 4096)" "$(v9_wgk 128 88 1 1 false false 7 64 true 8)"
  bench $1 $2-128x14336x4096 "$(nt 128 14336 4096)" "$(v9_wgk 128 112 1 1 true false 6 64 true 8)"
  bench $1 $2-128x4096x4096 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 1 1 true false 13 64 true 16)"
  bench $1 $2-512x4096x14336 "$(nt 512 4096 14336)" "$(v9_wgk 128 128 1 1 true false 6 128 true 8)"
}
for rep in 1 2; do
  for name in main batch2 batch4 batch8 pfoff; do
    export KTUNE_KERNEL_DIR=${dirs[$name]}
    cases turns-$name $name$rep
  done
done
export KTUNE_KERNEL_DIR=$PWD/kernels_templated
gpu_state
