# common.sh: what the runs of results v20 share (sourced by run-*.sh): v19's helpers (turns_case, in_turns, nt,
# v9_wgk, gpu_tests, ...), with kernels_of reading v20's variants folder first. The runs carry
# build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-04-v19/scripts/common.sh"
V20=bench/results/gemm-hopper-2026-12-04-v20
V18_VARIANTS=$PWD/$V20/variants  # kernels_of (v18's) reads this folder first

# mma_three_tiles FILE LABEL (in_turns cases) and mma_variant_run VARIANT RUN: an mma.sync variant's check and timing (runs C and D): every path's edge-shape suite
# on the variant's text (gpu-every-path-VARIANT-runRUN.log), then main and the variant in turns with cuBLAS on
# main's three best tiles at 4096^3 and 8192^3, twice (turns-runRUN.tgz).
mma_three_tiles() {
  local tiles=("$(tcs 256 128 64 64 64 3 8 true)" "$(tcs 128 256 64 64 64 3 16 true)" "$(tcs 128 256 32 64 64 4 16 true)")
  turns_case "$2-4096" "$(nn 4096 4096 4096)" "${tiles[@]}"
  turns_case "$2-8192" "$(nn 8192 8192 8192)" "${tiles[@]}"
}
mma_variant_run() {
  export KTUNE_KERNEL_DIR=$(kernels_of "$1") || return 1
  gpu_tests 300 "GemmGpu.EveryPathMatchesCublasOnEdgeShapes" "gpu-every-path-$1-run$2.log" 10
  export KTUNE_KERNEL_DIR=$PWD/kernels_templated
  in_turns mma_three_tiles main "$1"
  tar czf "$OUT/turns-run$2.tgz" -C "$OUT" $(cd "$OUT" && ls turns-*.txt) && rm "$OUT"/turns-*.txt  # few files come back
}
