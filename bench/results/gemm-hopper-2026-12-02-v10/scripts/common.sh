# common.sh: what the runs of results v10 share (sourced by run-*.sh): v9's helpers (wgk, nt, and v6's bench).
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-02-v9/scripts/common.sh"
