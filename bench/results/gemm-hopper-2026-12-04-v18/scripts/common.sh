# common.sh: what the runs of results v18 share (sourced by run-*.sh): v17's helpers (bench, turns_case, nn,
# bench_key_lines, in_turns, gpu_state, ...). The runs carry build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-04-v17/scripts/common.sh"
V18=bench/results/gemm-hopper-2026-12-04-v18

# tcp BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M PERSISTENT [MIN_BLOCKS]: an aligned mma.sync key with
# the PERSISTENT knob of variants/persistent_mma.patch (the binaries of runs A and B were built with it).
tcp() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=${9:-1},PERSISTENT=$8,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,VEC=8,WARP_M=$4,WARP_N=$5"
}
# tcs BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M STAGE_C [MIN_BLOCKS]: an aligned mma.sync key with
# main's STAGE_C knob (runs C on).
tcs() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=${9:-1},PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,STAGE_C=$8,VEC=8,WARP_M=$4,WARP_N=$5"
}

# kernels_of NAME: as v15's, reading v18's variants folder first (in_turns uses it).
V18_VARIANTS=$PWD/$V18/variants
eval "v15_$(declare -f kernels_of)"
kernels_of() {
  if [ -f "$V18_VARIANTS/$1.patch" ]; then VARIANTS=$V18_VARIANTS variant_kernels "$1"; else v15_kernels_of "$1"; fi
}

# tcps BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M STAGE_C PERSISTENT [MIN_BLOCKS]: an aligned mma.sync key
# with both knobs (run D on).
tcps() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=${10:-1},PERSISTENT=$9,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,STAGE_C=$8,VEC=8,WARP_M=$4,WARP_N=$5"
}
