# common.sh: what the runs of results v15 share (sourced by run-*.sh): v14's helpers (bench, nt, kernels_of,
# in_turns, database_table, ...). The runs carry build-carry-lead/{bin,lib} (stripped Release binaries, libtbb).
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-03-v14/scripts/common.sh"
V15=bench/results/gemm-hopper-2026-12-03-v15

# kernels_of NAME: as v14's, reading v15's variants folder first (in_turns uses it).
V15_VARIANTS=$PWD/$V15/variants
eval "v14_$(declare -f kernels_of)"
kernels_of() {
  if [ -f "$V15_VARIANTS/$1.patch" ]; then VARIANTS=$V15_VARIANTS variant_kernels "$1"; else v14_kernels_of "$1"; fi
}

# wks BLOCK_M BLOCK_N CLUSTER_M CLUSTER_N PERSISTENT STAGES WARP_M STAGE_C GROUP_M SPLIT_K: a wgmma key with a
# K split (partials reduced through the fp32 workspace; SPLIT_K > 1 needs STAGE_C=false).
wks() {
  local key
  key=$(v9_wgk $1 $2 $3 $4 $5 false $6 $7 $8 $9)
  echo "${key/SPLIT_K=1,/SPLIT_K=${10},}"
}

# small_m_cases FILE LABEL: the five M = 128 LLM shapes and 512x4096x14336, each with its database winner
# (runs C-E), through bench (timed alone, verified, in turns with cuBLAS).
small_m_cases() {
  bench $1 $2-128x4096x14336 "$(nt 128 4096 14336)" "$(v9_wgk 64 64 1 1 false false 13 64 true 8)"
  bench $1 $2-128x4096x11008 "$(nt 128 4096 11008)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)"
  bench $1 $2-128x11008x4096 "$(nt 128 11008 4096)" "$(v9_wgk 128 88 1 1 false false 7 64 true 8)"
  bench $1 $2-128x14336x4096 "$(nt 128 14336 4096)" "$(v9_wgk 128 112 1 1 true false 6 64 true 8)"
  bench $1 $2-128x4096x4096 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 1 1 true false 13 64 true 16)"
  bench $1 $2-512x4096x14336 "$(nt 512 4096 14336)" "$(v9_wgk 128 128 1 1 true false 6 128 true 8)"
}

# patched_kernels NAME PATCH SED: a copy of main's kernels_templated in /tmp/NAME with variants/PATCH applied and
# the sed script SED run on its gemm_wgmma.cuh (to set the variant's constants); prints the folder.
patched_kernels() {
  local d=/tmp/$1
  rm -rf $d && mkdir -p $d && cp -r "$PWD/kernels_templated" $d/ &&
    patch -s -p1 -d $d/kernels_templated < "$PWD/$V15/variants/$2" &&
    sed -i -e "$3" $d/kernels_templated/gemm/gemm_wgmma.cuh && echo $d/kernels_templated
}

# prefetch_variants PATCH AHEAD_SPAN...: for each setting, dirs[pfAHEAD_SPAN] = a kernel folder with PATCH (one of
# the L2-prefetch variants of runs C and D) applied and its KTUNE_PF_AHEAD / KTUNE_PF_SPAN set; `dirs` is the
# caller's associative array.
prefetch_variants() {
  local patch=$1 s; shift
  for s in "$@"; do
    dirs[pf$s]=$(patched_kernels pf$s $patch \
      "s/^#define KTUNE_PF_AHEAD .*/#define KTUNE_PF_AHEAD ${s%_*}/; s/^#define KTUNE_PF_SPAN .*/#define KTUNE_PF_SPAN ${s#*_}/")
  done
}

# small_m_turns NAME...: small_m_cases with each named kernel folder of the associative array `dirs`, in turns,
# twice (files turns-NAME.txt, labels NAME1 and NAME2).
small_m_turns() {
  local rep name
  for rep in 1 2; do
    for name in "$@"; do
      export KTUNE_KERNEL_DIR=${dirs[$name]}
      small_m_cases turns-$name $name$rep
    done
  done
  export KTUNE_KERNEL_DIR=$PWD/kernels_templated
}

# pair_cases FILE LABEL: runs G and I's benches, each with a pair along N, a pair along M and no cluster where it
# applies (the control, the same kernel text in every variant): 512x4096x4096, 8192x4096x4096, 128x4096x11008.
pair_cases() {
  bench $1 $2-512x4096x4096 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 false false 6 128 true 16)" \
    "$(v9_wgk 128 128 1 2 false false 6 128 true 16)" "$(v9_wgk 128 128 2 1 false false 6 128 true 16)"
  bench $1 $2-8192x4096x4096 "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)" \
    "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  bench $1 $2-128x4096x11008 "$(nt 128 4096 11008)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)" \
    "$(v9_wgk 64 64 2 1 true false 13 64 true 16)"
}
