#!/usr/bin/env bash
# ktune's user-kernel path against a hand-written harness (issue 50 step 7), on
# the GPU machine: the transpose example (examples/user_kernels/transpose, fp32
# 4096 x 4096), all 32 configurations of its space, tuned exhaustively by
# `ktune tune --spec` (compiled, verified on random and edge inputs, timed with
# the L2 flushed, in an isolated worker) and by bench_user_kernel_harness
# (compiled and timed, nothing else). Prints the wall time per configuration of
# each, and per configuration the ratio of the two medians, in one table.
# Usage: bench/user_kernel_overhead.sh OUT_DIR   ($KTUNE_BUILD: the build, default build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: bench/user_kernel_overhead.sh OUT_DIR}"
bin="${KTUNE_BUILD:-$root/build}/bin"
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
export KTUNE_KERNEL_DIR="$root/kernels_templated"
example="$root/examples/user_kernels/transpose"
mkdir -p "$out"
rm -f "$out/user.db"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee "$out/gpu.txt"

now() { date +%s.%N; }
start=$(now)
"$bin/bench_user_kernel_harness" "$example/transpose.cu" 4096 4096 | tee "$out/hand.txt"
hand_s=$(awk "BEGIN {print $(now) - $start}")
start=$(now)
"$bin/ktune" tune --spec "$example/transpose.json" --problem rows=4096,cols=4096 \
  --strategy exhaustive --budget 64 --batch 8 --no-warm-start --db "$out/user.db" | tee "$out/ktune.txt"
ktune_s=$(awk "BEGIN {print $(now) - $start}")
"$bin/ktune" db export --db "$out/user.db" -o "$out/user.csv"

python3 - "$out/hand.txt" "$out/user.csv" "$hand_s" "$ktune_s" <<'PY' | tee "$out/summary.md"
import csv, statistics, sys
hand = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 7 and f[1] == "median_us":
        hand[f[0]] = float(f[2])
ours = {r["config_key"]: float(r["median_s"]) * 1e6
        for r in csv.DictReader(open(sys.argv[2])) if r["status"] == "ok"}
hand_s, ktune_s = float(sys.argv[3]), float(sys.argv[4])
print("| configuration | hand-written µs | ktune µs | ktune / hand |")
print("|---|---|---|---|")
ratios = []
for key in sorted(hand):
    if key in ours:
        ratios.append(ours[key] / hand[key])
        print("| `%s` | %.2f | %.2f | %.3f |" % (key, hand[key], ours[key], ratios[-1]))
print()
print("configurations: hand-written %d timed, ktune %d verified and timed, %d in both" %
      (len(hand), len(ours), len(ratios)))
if hand and ours:
    print("wall per configuration: hand-written %.0f ms, ktune %.0f ms (%.2fx)" %
          (hand_s * 1e3 / len(hand), ktune_s * 1e3 / len(ours),
           (ktune_s / len(ours)) / (hand_s / len(hand))))
if ratios:
    print("kernel time, ktune / hand-written: median %.3f, range %.3f-%.3f" %
          (statistics.median(ratios), min(ratios), max(ratios)))
PY
