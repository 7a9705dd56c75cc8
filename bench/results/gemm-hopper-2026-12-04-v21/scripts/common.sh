# common.sh: what the runs of results v21 share (sourced by run-*.sh): v20's helpers (gpu_tests, ampere_suite,
# database_table, turns_case, ...). The runs carry build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-04-v20/scripts/common.sh"
V21=bench/results/gemm-hopper-2026-12-04-v21
