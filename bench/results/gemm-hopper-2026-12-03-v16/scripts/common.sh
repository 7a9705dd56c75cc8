# common.sh: what the runs of results v16 share (sourced by run-*.sh): v15's helpers (bench, nt, v9_wgk,
# in_turns, database_table, ...). The runs carry build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-03-v15/scripts/common.sh"
V16=bench/results/gemm-hopper-2026-12-03-v16
