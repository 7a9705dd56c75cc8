# common.sh: what the runs of results v13 share (sourced by run-*.sh): v12's helpers (v9_wgk, nt, bench,
# variant_kernels, ...), with variant_kernels reading v13's variants folder, falling back to v12's.
#
# v13 is the first results folder whose variants really ran: until ktune's compiler passed
# --no-source-include, NVRTC took the templates from the working directory (the repository root) before
# KTUNE_KERNEL_DIR, so every variant of v7-v12 compiled main's kernels.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-02-v12/scripts/common.sh"
V13_VARIANTS=$PWD/bench/results/gemm-hopper-2026-12-02-v13/variants
V12_VARIANTS=$VARIANTS

# kernels_of NAME: the kernel folder to pass as KTUNE_KERNEL_DIR: main's for "main", else a patched copy.
kernels_of() {
  if [ "$1" = main ]; then echo "$PWD/kernels_templated"; return; fi
  if [ -f "$V13_VARIANTS/$1.patch" ]; then VARIANTS=$V13_VARIANTS variant_kernels "$1"; else VARIANTS=$V12_VARIANTS variant_kernels "$1"; fi
}

# in_turns CASES NAME...: main's kernels and every named variant's, in turns, twice. Each turn calls
# `CASES FILE LABEL` with FILE turns-NAME and LABEL NAME1 or NAME2 (as main_and_variant does).
in_turns() {
  local cases=$1 rep name; shift
  declare -A dirs
  for name in "$@"; do dirs[$name]=$(kernels_of "$name") || return 1; done
  for rep in 1 2; do
    for name in "$@"; do
      export KTUNE_KERNEL_DIR=${dirs[$name]}
      "$cases" "turns-$name" "$name$rep"
    done
  done
  export KTUNE_KERNEL_DIR=$PWD/kernels_templated
}

# sass_of NAME: the SASS of build-carry-lead/cubins/NAME.cubin (compiled here by make-cubins.sh) in $OUT.
sass_of() { cuobjdump -sass "build-carry-lead/cubins/$1.cubin" > "$OUT/sass-$1.txt" 2>&1; echo "sass $1 rc=$?"; }

# staged_cases FILE LABEL: the five shapes of runs C-F with their shipped winners' tiles (C staged through shared
# memory): 512x4096x4096, 128x4096x4096 (12 stages, even for run C's 128-K stages), 8192x4096x4096 (pair along
# M), 4096x4096x4096, 2048x11008x4096.
staged_cases() {
  bench $1 $2-512x4096x4096 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 true false 6 128 true 16)"
  bench $1 $2-128x4096x4096 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 1 1 false false 12 64 true 16)"
  bench $1 $2-8192x4096x4096 "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  bench $1 $2-4096x4096x4096 "$(nt 4096 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 8)"
  bench $1 $2-2048x11008x4096 "$(nt 2048 11008 4096)" "$(v9_wgk 128 168 1 1 true false 5 64 true 8)"
}

# database_table DB: every problem's two best configurations in DB re-timed, the faster verified and timed in
# turns with cuBLAS (table.txt, table-rows.md in $OUT), as v12's run E.
database_table() {
  bench_database_winners "$1" 2 table > /dev/null
  echo "table at $(el)s"; wc -l $OUT/table-rows.md
}
