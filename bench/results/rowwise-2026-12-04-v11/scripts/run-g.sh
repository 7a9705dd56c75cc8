#!/usr/bin/env bash
# Run G (rowwise v11): after the review, the probes share bench/probe_bulk.cuh (same PTX), and the read probe's
# register copies also run with plain loads (runs A-E's copies used the 256-byte-prefetch loads, which read 7%
# slower). The read probe twice, then the rmsnorm bulk probe and the TMA multicast probe once each, to check
# all three on the H200 after the change.
source "$(dirname "$0")/common.sh"
for rep in 1 2; do
  timeout 120 $B/bench_read_bandwidth_probe > $OUT/read-probe-runG-$rep.txt 2>&1
  echo "read probe $rep rc=$?"
done
timeout 120 $B/bench_rmsnorm_bulk_probe > $OUT/rmsnorm-bulk-probe-runG.txt 2>&1
echo "rmsnorm bulk probe rc=$?"
timeout 120 $B/bench_tma_multicast_probe > $OUT/tma-multicast-probe-runG.txt 2>&1
echo "tma multicast probe rc=$?"
grep -E "cudaMemcpy|copy kernel|grid unroll|NO " $OUT/read-probe-runG-1.txt
cat $OUT/rmsnorm-bulk-probe-runG.txt $OUT/tma-multicast-probe-runG.txt
gpu_state
