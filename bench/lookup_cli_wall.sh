#!/usr/bin/env bash
# `ktune lookup` from the command line: each call's wall time (process start
# to exit) beside the time spent inside it (--verbose: indexing, the
# predictor's key and calibration, the answer), for exact, nearest and
# predicted answers, and a sibling GPU's prediction, on the shipped database.
# Usage: bench/lookup_cli_wall.sh [REPEATS]   (default 20; $KTUNE: the binary)
# Wall: process start to exit; CPU: its user + system time (/usr/bin/time),
# which a loaded machine inflates less; inside: the --verbose steps' wall time.
# The first call fits the calibration into a fresh cache folder (reported
# apart); the repeats read it. Prints one table row per case (p50 and max).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ktune="${KTUNE:-$root/build/bin/ktune}"
repeats="${1:-20}"
db="$root/tuning_db/ktune.db"
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
export KTUNE_PREDICTOR_CACHE="$cache"

now_ns() { date +%s%N; }
# p50 and max of the numbers on stdin
stats() { sort -g | awk '{v[NR] = $1} END {printf "%.1f | %.1f", v[int((NR + 1) / 2)], v[NR]}'; }
# the ms of the --verbose lines that matches $1, summed over the steps inside the process
inside_ms() {
  awk '/^lookup: indexed/ {for (i = 1; i <= NF; ++i) if ($i == "ms") s += $(i - 1)}
       /^lookup: predictor key/ {s += $4; for (i = 6; i <= NF; ++i) if ($i == "ms" || $i == "ms:") s += $(i - 1)}
       /^lookup: answered/ {s += $4}
       END {printf "%.2f\n", s}'
}

run_case() {
  local name="$1"; shift
  local args=(lookup --db "$cache/none.db" --system-db "$db" --kernel gemm --verbose "$@")
  local first_start first_end source
  first_start="$(now_ns)"
  "$ktune" "${args[@]}" >"$cache/out" 2>"$cache/err"
  first_end="$(now_ns)"
  source="$(head -1 "$cache/out" | sed 's/.*(\(.*\))$/\1/')"
  local first_wall first_inside
  first_wall="$(awk -v a="$first_start" -v b="$first_end" 'BEGIN {printf "%.1f", (b - a) / 1e6}')"
  first_inside="$(inside_ms <"$cache/err")"
  : >"$cache/wall"
  : >"$cache/cpu"
  : >"$cache/inside"
  for _ in $(seq "$repeats"); do
    local start end
    start="$(now_ns)"
    /usr/bin/time -f "%U %S" -o "$cache/time" "$ktune" "${args[@]}" >/dev/null 2>"$cache/err"
    end="$(now_ns)"
    awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", (b - a) / 1e6}' >>"$cache/wall"
    awk '{printf "%.1f\n", ($1 + $2) * 1e3}' "$cache/time" >>"$cache/cpu"
    inside_ms <"$cache/err" >>"$cache/inside"
  done
  grep -q "calibration read from cache" "$cache/err" || echo "note: $name did not read the cache" >&2
  echo "| $name | $source | $(stats <"$cache/wall") | $(stats <"$cache/cpu") |" \
       "$(stats <"$cache/inside") | $first_wall / $first_inside |"
}

echo "ktune: $("$ktune" --version); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $repeats calls per case"
echo
echo "| case | answer | wall p50 ms | wall max ms | CPU p50 ms | CPU max ms | inside p50 ms | inside max ms | first call (fit) wall / inside ms |"
echo "|---|---|---|---|---|---|---|---|---|"
# The process alone, for scale: starting ktune (the CUDA runtime; MPI where built with it) and exiting.
: >"$cache/wall"
: >"$cache/cpu"
for _ in $(seq "$repeats"); do
  start="$(now_ns)"
  /usr/bin/time -f "%U %S" -o "$cache/time" "$ktune" --version >/dev/null
  end="$(now_ns)"
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", (b - a) / 1e6}' >>"$cache/wall"
  awk '{printf "%.1f\n", ($1 + $2) * 1e3}' "$cache/time" >>"$cache/cpu"
done
echo "| ktune --version (no lookup) | - | $(stats <"$cache/wall") | $(stats <"$cache/cpu") | - | - | - |"
run_case "exact" --problem m=4096,n=4096,k=4096,dtype=bf16,layout=nt --device "NVIDIA H200"
run_case "nearest" --problem m=1024,n=1024,k=1024,dtype=bf16,layout=nt --device "NVIDIA H200" --min-distance 1
run_case "predicted" --problem m=24,n=4096,k=4096,dtype=bf16,layout=nt --device "NVIDIA H200"
run_case "sibling predicted (H100 SXM)" --problem m=24,n=4096,k=4096,dtype=bf16,layout=nt --device "NVIDIA H100 80GB HBM3"
