# common.sh: what the runs of results v16 share (sourced by run-*.sh): v15's helpers (bench, nt, v9_wgk,
# in_turns, database_table, ...). The runs carry build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-03-v15/scripts/common.sh"
V16=bench/results/gemm-hopper-2026-12-03-v16

# turns_case LABEL PROBLEM CONFIG...: bench_gemm_bench --all-in-turns (every configuration verified, then all of
# them and cuBLAS timed in turns with one another) into $OUT/turns-LABEL.txt, its summary lines printed.
# TURNS_BENCH names the bench binary (default $B/bench_gemm_bench).
turns_case() {
  local label=$1 prob=$2; shift 2; local args=()
  for c in "$@"; do args+=(--config "$c"); done
  timeout 150 ${TURNS_BENCH:-$B/bench_gemm_bench} --problem "$prob" "${args[@]}" --all-in-turns --out /tmp/b/$label \
    > $OUT/turns-$label.txt 2>&1
  echo "$label rc=$? at $(el)s"; grep -E "all in turns|in turns:|FAIL|rror" $OUT/turns-$label.txt |
    sed -e 's/,PATH=wgmma//; s/,REDUCE=workspace,SPLIT_K=1//; s/PINGPONG=false,//' | cut -c1-200
}
