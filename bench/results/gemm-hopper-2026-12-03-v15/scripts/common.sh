# common.sh: what the runs of results v15 share (sourced by run-*.sh): v14's helpers (bench, nt, kernels_of,
# in_turns, database_table, ...). The runs carry build-carry-lead/{bin,lib} (stripped Release binaries, libtbb).
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-03-v14/scripts/common.sh"
V15=bench/results/gemm-hopper-2026-12-03-v15

# wks BLOCK_M BLOCK_N CLUSTER_M CLUSTER_N PERSISTENT STAGES WARP_M STAGE_C GROUP_M SPLIT_K: a wgmma key with a
# K split (partials reduced through the fp32 workspace; SPLIT_K > 1 needs STAGE_C=false).
wks() {
  echo "BLOCK_K=64,BLOCK_M=$1,BLOCK_N=$2,CLUSTER_M=$3,CLUSTER_N=$4,GROUP_M=$9,PATH=wgmma,PERSISTENT=$5,PINGPONG=false,REDUCE=workspace,SPLIT_K=${10},STAGES=$6,STAGE_C=$8,WARP_M=$7"
}
