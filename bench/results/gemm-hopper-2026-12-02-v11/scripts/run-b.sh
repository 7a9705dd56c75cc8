#!/usr/bin/env bash
# Run B (gemm v11): (1) the whole wgmma verification suite on the edited kernel text (GemmGpu.Wgmma*:
# the edge shapes, now with a stream-K pick per problem, and the stream-K test again); (2) compute-sanitizer
# memcheck and racecheck on two stream-K configurations whose tails split into contributor and finisher
# pieces (64x64 tiles, one consumer; 128x128 pairs along M, two consumers, staged C).
source "$(dirname "$0")/common.sh"
timeout 420 $B/ktune_gpu_tests --gtest_filter='GemmGpu.Wgmma*' > $OUT/gpu-wgmma-runB.log 2>&1
echo "wgmma tests rc=$? at $(el)s"; grep -E "configs passed|FAIL|OK \]|FAILED" $OUT/gpu-wgmma-runB.log | head -16 | cut -c1-300
SAN=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  timeout 75 $SAN --tool $tool --print-limit 20 $B/bench_gemm_bench --problem "m=1024,n=1100,k=1024,dtype=bf16,layout=nt" \
    --config "$(sk "$(wgk 64 64 1 1 true false 8 64 false 8)")" --out /tmp/b/san1-$tool > $OUT/sanitizer-$tool-runB.txt 2>&1
  echo "$tool 1 rc=$? at $(el)s"
  timeout 75 $SAN --tool $tool --print-limit 20 $B/bench_gemm_bench --problem "m=2048,n=1152,k=1024,dtype=bf16,layout=nt" \
    --config "$(sk "$(wgk 128 128 2 1 true false 4 64 true 8)")" --out /tmp/b/san2-$tool >> $OUT/sanitizer-$tool-runB.txt 2>&1
  echo "$tool 2 rc=$? at $(el)s"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|hazard|verify" $OUT/sanitizer-$tool-runB.txt | head -6 | cut -c1-200
done

gpu_state
