#!/usr/bin/env bash
# Run A (rowwise v11): the read and copy ceilings of 256 MB on the H200 (bench/read_bandwidth_probe.cu):
# plain, row-wise and bulk-copy (TMA) reads, and copies through registers and by the TMA alone, against the
# cudaMemcpy of the same bytes in the same process. Twice, to see the spread.
source "$(dirname "$0")/common.sh"
for rep in 1 2; do
  timeout 120 $B/bench_read_bandwidth_probe > $OUT/read-probe-$rep.txt 2>&1
  echo "probe $rep rc=$?"
done
cat $OUT/read-probe-1.txt
gpu_state
