#!/usr/bin/env bash
# First H200 run of v4 (A/B + ncu + GPU tests of the changed paths), from the
# repository root on the lent machine: OUT=dir bash bench/results/rowwise-2026-11-29-v4/run1.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/build-gpu-row/bin/ktune
B=build-gpu-row/bin
D=bench/results/rowwise-2026-11-29-v4
SECONDS=0
smi() { nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >>"$OUT/smi.txt" 2>&1; }
smi
# 1. A/B: v3 bests against the double-buffered rows (and rmsnorm's batched weights), verified then timed; PyTorch same run.
timeout 85 $B/bench_rowwise_bench --out /tmp/ab --warm $D/run1-seeds.json --seeds-only --only cols=524288 --only cols=131072 >"$OUT/ab.log" 2>&1
echo "ab rc=$? at ${SECONDS}s"; smi
grep -E "seed|D2D|\| (softmax|rmsnorm) " "$OUT/ab.log" | head -70
# 2. ncu on the v3 bests and one double-buffered candidate each.
shapes=("cols=524288" "cols=524288" "cols=131072" "cols=131072")
for i in 0 1 2 3; do
  echo "===== ncu $i $(cat $D/ncu-$i.json)" >>"$OUT/ncu.txt"
  timeout 35 ncu --clock-control none -k regex:"softmax_kernel|rmsnorm_kernel" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section ComputeWorkloadAnalysis --section SchedulerStats --section LaunchStats \
    $B/bench_rowwise_bench --out /tmp/ncu$i --warm $D/ncu-$i.json --seeds-only --no-torch --only "${shapes[$i]}" >>"$OUT/ncu.txt" 2>&1
  echo "ncu $i rc=$? at ${SECONDS}s"
done
# 3. GPU verification of the changed paths (the full Rowwise* filter runs with the final bench).
left=$((228 - SECONDS))
timeout $left $B/ktune_gpu_tests --gtest_filter='RowwiseGpu.LongRows*:RowwiseGpu.Persistent*' --gtest_brief=1 >"$OUT/gpu-tests.log" 2>&1
echo "tests rc=$? at ${SECONDS}s"
grep -E "verified|note: not launchable|Failure|FAILED|PASSED" "$OUT/gpu-tests.log" | head -20
