#!/usr/bin/env bash
# Run A (rowwise v11): the read and copy ceilings of 256 MB on the H200 (bench/read_bandwidth_probe.cu):
# plain, row-wise and bulk-copy (TMA) reads, and copies through registers and by the TMA alone, against the
# cudaMemcpy of the same bytes in the same process. Twice, to see the spread.
set -u
cd "$(dirname "$0")/../../../.."
B=build-carry-lead/bin
export LD_LIBRARY_PATH=$PWD/build-carry-lead/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
for rep in 1 2; do
  timeout 120 $B/bench_read_bandwidth_probe > $OUT/read-probe-$rep.txt 2>&1
  echo "probe $rep rc=$?"
done
cat $OUT/read-probe-1.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
