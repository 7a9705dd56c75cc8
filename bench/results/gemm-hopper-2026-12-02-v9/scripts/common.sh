# common.sh: what the runs of results v9 share (sourced by run-*.sh). v6's
# common.sh sets up the carried binaries and the bench helpers; v9 adds the
# CLUSTER_N knob to the wgmma key.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"

# wgk BLOCK_M BLOCK_N CLUSTER_M CLUSTER_N PERSISTENT PINGPONG STAGES WARP_M STAGE_C GROUP_M: a wgmma key.
wgk() {
  echo "BLOCK_K=64,BLOCK_M=$1,BLOCK_N=$2,CLUSTER_M=$3,CLUSTER_N=$4,GROUP_M=${10},PATH=wgmma,PERSISTENT=$5,PINGPONG=$6,REDUCE=workspace,SPLIT_K=1,STAGES=$7,STAGE_C=$9,WARP_M=$8"
}
nt() { echo "m=$1,n=$2,k=$3,dtype=bf16,layout=nt"; }
nn() { echo "m=$1,n=$2,k=$3,dtype=bf16,layout=nn"; }
