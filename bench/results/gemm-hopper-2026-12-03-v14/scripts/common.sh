# common.sh: what the runs of results v14 share (sourced by run-*.sh): v13's helpers (bench, staged_cases,
# database_table, ...). Runs A-C carry build-carry-lead/{bin,lib} (stripped Release binaries, libtbb).
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-02-v13/scripts/common.sh"
V14=bench/results/gemm-hopper-2026-12-03-v14

# kernels_of NAME: as v13's, reading v14's variants folder first.
V14_VARIANTS=$PWD/$V14/variants
eval "v13_$(declare -f kernels_of)"
kernels_of() {
  if [ -f "$V14_VARIANTS/$1.patch" ]; then VARIANTS=$V14_VARIANTS variant_kernels "$1"; else v13_kernels_of "$1"; fi
}
