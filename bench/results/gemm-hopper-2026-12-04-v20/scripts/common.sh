# common.sh: what the runs of results v20 share (sourced by run-*.sh): v19's helpers (turns_case, in_turns, nt,
# v9_wgk, gpu_tests, ...), with kernels_of reading v20's variants folder first. The runs carry
# build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-04-v19/scripts/common.sh"
V20=bench/results/gemm-hopper-2026-12-04-v20
V18_VARIANTS=$PWD/$V20/variants  # kernels_of (v18's) reads this folder first
