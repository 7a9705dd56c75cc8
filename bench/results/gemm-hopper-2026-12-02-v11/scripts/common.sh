# common.sh: what the runs of results v11 share (sourced by run-*.sh): v9's helpers
# (wgk, nt, and v6's bench), with the STREAM_K knob that v11 adds to the wgmma key.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-02-v9/scripts/common.sh"

# wgk ... as v9 (BLOCK_M BLOCK_N CLUSTER_M CLUSTER_N PERSISTENT PINGPONG STAGES WARP_M STAGE_C GROUP_M),
# now with STREAM_K=false; sk KEY: the same configuration with STREAM_K=true.
eval "v9_$(declare -f wgk)"
wgk() { echo "$(v9_wgk "$@"),STREAM_K=false"; }
sk() { echo "${1/STREAM_K=false/STREAM_K=true}"; }

# variant_kernels NAME: a copy of main's kernels_templated in /tmp/NAME with $VARIANTS/NAME.patch applied (a
# unified diff against kernels_templated/gemm; VARIANTS defaults to v11's variants folder); prints the folder
# to pass as KTUNE_KERNEL_DIR.
variant_kernels() {
  rm -rf /tmp/$1 && mkdir -p /tmp/$1 && cp -r "$PWD/kernels_templated" /tmp/$1/ &&
    patch -s -p1 -d /tmp/$1/kernels_templated < "${VARIANTS:-$PWD/bench/results/gemm-hopper-2026-12-02-v11/variants}/$1.patch" &&
    echo /tmp/$1/kernels_templated
}
