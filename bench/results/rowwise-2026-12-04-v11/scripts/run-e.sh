#!/usr/bin/env bash
# Run E (rowwise v11): the probe once more after its bulk kernels were rewritten around one shared ring
# (BulkRing; no change meant), to check that it still verifies and measures the same.
source "$(dirname "$0")/common.sh"
timeout 120 $B/bench_read_bandwidth_probe > $OUT/read-probe-runE.txt 2>&1
echo "probe rc=$?"
cat $OUT/read-probe-runE.txt
gpu_state
