#!/usr/bin/env bash
# Run A (gemm v12): where the small shapes' time outside the kernel goes. (1) bench_launch_overhead_probe:
# an almost empty kernel launched the ways our harness launches, timed as gemm_bench times. (2) The ten
# M = 128 and M = 512 LLM shapes' shipped winners, main's kernel text against variants/prefetch_tensormap.patch
# (prefetch.tensormap of both maps at kernel start), in turns, twice; each run's winner verified and timed in
# turns with cuBLAS. (3) ncu durations of ours and cuBLAS's kernels under the bench's own flush (no ncu cache
# control) at 128x4096x4096 and 512x4096x4096, to set against the events' medians.
source "$(dirname "$0")/common.sh"
$B/bench_launch_overhead_probe > $OUT/launch-overhead-runA.txt 2>&1; cat $OUT/launch-overhead-runA.txt
$B/bench_launch_overhead_probe 132 256 >> $OUT/launch-overhead-runA.txt 2>&1; tail -7 $OUT/launch-overhead-runA.txt
small_m_winners /tmp/b/small.txt
wc -l /tmp/b/small.txt
small_m_cases() { bench_key_lines "$1" "$2-" /tmp/b/small.txt; }
main_and_variant pf prefetch_tensormap small_m_cases || exit 1
for shape in 128x4096x4096 512x4096x4096; do
  line=$(grep -E ",k=4096,.*,m=${shape%%x*},n=4096," /tmp/b/small.txt)
  timeout 120 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum \
    $B/bench_gemm_bench --problem "${line%%|*}" --config "${line#*|}" --out /tmp/b/ncu-$shape > $OUT/ncu-durations-$shape-runA.txt 2>&1
  echo "ncu $shape rc=$? at $(el)s"
  grep -E "gemm_wgmma|nvjet|sm90|gpu__time" $OUT/ncu-durations-$shape-runA.txt | head -4
done
gpu_state
