# common.sh: what the runs of results v17 share (sourced by run-*.sh): v16's helpers (bench, nt, v9_wgk, ...).
# The runs carry build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-03-v16/scripts/common.sh"
V17=bench/results/gemm-hopper-2026-12-04-v17
