#!/usr/bin/env bash
# The v4 H200 run (A/B timing + full row-wise GPU verification + ncu), from the
# repository root on the lent machine: OUT=dir bash bench/results/rowwise-2026-11-29-v4/run1.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/build-gpu-row/bin/ktune
B=build-gpu-row/bin
D=bench/results/rowwise-2026-11-29-v4
SECONDS=0
smi() { nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >>"$OUT/smi.txt" 2>&1; }
smi
# 1. A/B: v3 bests against the double-buffered rows (and rmsnorm's batched weights), each verified against
#    the fp64 reference then timed; D2D copy and PyTorch in the same process.
timeout 85 $B/bench_rowwise_bench --out /tmp/ab --warm $D/run1-seeds.json --seeds-only --only cols=524288 --only cols=131072 >"$OUT/ab.log" 2>&1
echo "ab rc=$? at ${SECONDS}s"; smi
cp /tmp/ab/rowwise-bench.json "$OUT/ab-bench.json" 2>/dev/null
grep -E "seed|D2D|\| (softmax|rmsnorm) " "$OUT/ab.log" | head -70
# 2. Row-wise GPU verification (all four tests: sampled spaces, persistent loops incl. smem2, long-row seeds incl. smem2).
timeout 100 $B/ktune_gpu_tests --gtest_filter='Rowwise*' --gtest_brief=1 >"$OUT/gpu-tests.log" 2>&1
echo "tests rc=$? at ${SECONDS}s"
grep -E "verified|note: not launchable|Failure|FAILED|PASSED" "$OUT/gpu-tests.log" | head -20
# 3. ncu: the v3 bests first, then one double-buffered candidate each, while time is left.
shapes=("cols=524288" "cols=524288" "cols=131072" "cols=131072")
for i in 0 2 1 3; do
  left=$((230 - SECONDS)); [ "$left" -lt 12 ] && break
  echo "===== ncu $i $(cat $D/ncu-$i.json)" >>"$OUT/ncu.txt"
  timeout $((left < 30 ? left : 30)) ncu --clock-control none -k regex:"softmax_kernel|rmsnorm_kernel" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section ComputeWorkloadAnalysis --section SchedulerStats --section LaunchStats \
    $B/bench_rowwise_bench --out /tmp/ncu$i --warm $D/ncu-$i.json --seeds-only --no-torch --only "${shapes[$i]}" >>"$OUT/ncu.txt" 2>&1
  echo "ncu $i rc=$? at ${SECONDS}s"
done
smi
