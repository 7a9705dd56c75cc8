# Sourced by bench/transfer/run and sibling-vs-own: reading what
# `bench_gemm_bench --problem P --config ... --all-in-turns` printed.

# ms_in_turns TEXT KEY: the median ms of configuration KEY (or cuBLAS) timed in
# turns, from its line "  all in turns: MS ms  TFLOPS TFLOP/s  KEY (...)";
# empty when KEY was not timed (its verification failed, or the run did).
ms_in_turns() {
  awk -v key="$2" '$1 == "all" && $2 == "in" && $3 == "turns:" && $8 == key {print $4}' <<<"$1" | head -1
}

# ratio X Y: X / Y to three decimals, or n/a when either is missing.
ratio() {
  if [ -n "$1" ] && [ -n "$2" ]; then awk -v x="$1" -v y="$2" 'BEGIN {printf "%.3f", x / y}'; else echo "n/a"; fi
}
