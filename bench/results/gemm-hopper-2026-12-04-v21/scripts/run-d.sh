#!/usr/bin/env bash
# Run D (gemm v21): a profiled `ktune tune` on the H200 (the CLI path of --profile: CUPTI replay per verified
# configuration, metrics.profile and metrics.bottleneck stored), for a GEMM and an RMSNorm problem, into
# $OUT/profiled.db; the tables printed and the stored metrics dumped with `ktune db export`.
source "$(dirname "$0")/common.sh"
$B/ktune tune --kernel gemm --problem m=2048,n=2048,k=2048,dtype=bf16,layout=nt --profile --budget 4 \
  --db $OUT/profiled.db > $OUT/tune-gemm.log 2>&1
echo "tune gemm rc=$? at $(el)s"; tail -12 $OUT/tune-gemm.log | cut -c1-240
$B/ktune tune --kernel rmsnorm --problem rows=16384,cols=4096,dtype=bf16 --profile --budget 3 \
  --db $OUT/profiled.db > $OUT/tune-rmsnorm.log 2>&1
echo "tune rmsnorm rc=$? at $(el)s"; tail -8 $OUT/tune-rmsnorm.log | cut -c1-240
$B/ktune db export --db $OUT/profiled.db --format jsonl --output $OUT/profiled.jsonl > /dev/null 2>&1
echo "export rc=$?"; grep -o '"bottleneck":{[^}]*}' $OUT/profiled.jsonl | head -8
gpu_state
