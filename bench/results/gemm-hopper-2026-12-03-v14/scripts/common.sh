# common.sh: what the runs of results v14 share (sourced by run-*.sh): v13's helpers (bench, staged_cases,
# database_table, ...). Runs A-C carry build-carry-lead/{bin,lib} (stripped Release binaries, libtbb).
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-02-v13/scripts/common.sh"
V14=bench/results/gemm-hopper-2026-12-03-v14
