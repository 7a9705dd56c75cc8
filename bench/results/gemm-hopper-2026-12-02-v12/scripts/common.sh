# common.sh: what the runs of results v12 share (sourced by run-*.sh): v11's helpers (v9_wgk, nt, bench,
# bench_key_lines, variant_kernels), with variant_kernels reading v12's variants folder.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-02-v11/scripts/common.sh"
VARIANTS=$PWD/bench/results/gemm-hopper-2026-12-02-v12/variants

# small_m_winners FILE: the shipped database's best configuration of every M = 128 and M = 512 problem, as
# problem|config lines (the form bench_key_lines reads).
small_m_winners() {
  $B/ktune db query --db tuning_db/ktune.db --top 1 --keys | grep -E ",m=(128|512)," > "$1"
}

# main_and_variant SHORT VARIANT CASES: main's kernels and those of variants/VARIANT.patch in turns, twice.
# Each turn calls `CASES FILE LABEL` (FILE: SHORT-main or SHORT-SHORT, the $OUT/FILE.txt that `bench` appends
# to; LABEL: main1, SHORT1, main2, SHORT2), which runs the turn's benches. Leaves KTUNE_KERNEL_DIR at main's
# kernels and VARIANT_DIR at the variant's.
main_and_variant() {
  local short=$1 rep variant
  VARIANT_DIR=$(variant_kernels "$2") || return 1
  for rep in 1 2; do
    for variant in main "$short"; do
      if [ "$variant" = main ]; then export KTUNE_KERNEL_DIR=$PWD/kernels_templated; else export KTUNE_KERNEL_DIR=$VARIANT_DIR; fi
      "$3" "$short-$variant" "$variant$rep"
    done
  done
  export KTUNE_KERNEL_DIR=$PWD/kernels_templated
}
