# common.sh: what the runs of results v12 share (sourced by run-*.sh): v11's helpers (v9_wgk, nt, bench,
# bench_key_lines, variant_kernels), with variant_kernels reading v12's variants folder.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-02-v11/scripts/common.sh"
VARIANTS=$PWD/bench/results/gemm-hopper-2026-12-02-v12/variants

# small_m_winners FILE: the shipped database's best configuration of every M = 128 and M = 512 problem, as
# problem|config lines (the form bench_key_lines reads).
small_m_winners() {
  $B/ktune db query --db tuning_db/ktune.db --top 1 --keys | grep -E ",m=(128|512)," > "$1"
}
