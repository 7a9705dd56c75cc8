#!/usr/bin/env bash
# Run B (gemm v12): run A found about 1 us more between the events and our kernel's ncu duration than
# around cuBLAS's, at 128x4096x4096 and 512x4096x4096. The probe now also launches an NVRTC-compiled
# kernel from a cudaLibrary, as every ktune candidate is launched; twice, then once under ncu (durations).
source "$(dirname "$0")/common.sh"
for rep in 1 2; do $B/bench_launch_overhead_probe >> $OUT/launch-overhead-runB.txt 2>&1; done
cat $OUT/launch-overhead-runB.txt
timeout 120 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum $B/bench_launch_overhead_probe \
  > $OUT/ncu-probe-runB.txt 2>&1
echo "ncu rc=$?"
gpu_state
