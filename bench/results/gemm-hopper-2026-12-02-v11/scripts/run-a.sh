#!/usr/bin/env bash
# Run A (gemm v11): the stream-K tail on the H200. (1) GemmGpu.WgmmaStreamKMatchesCublas: 42 stream-K
# configurations, each launched twice, on shapes whose last round splits; (2) A/B: v9's table winners
# against their stream-K twins on the LLM shapes with a partial last round (and 8192^3).
source "$(dirname "$0")/common.sh"
timeout 240 $B/ktune_gpu_tests --gtest_filter='GemmGpu.WgmmaStreamKMatchesCublas' > $OUT/gpu-sk-runA.log 2>&1
echo "sk test rc=$? at $(el)s"; grep -E "configs passed|FAIL|OK \]|FAILED" $OUT/gpu-sk-runA.log | head -12 | cut -c1-300

C2=$(wgk 128 256 2 1 true false 4 64 true 8)   # v9's winner at 8192x4096x4096, 4096^3, 8192^3, ... (pairs along M)
C1=$(wgk 128 256 1 1 true false 4 64 true 8)   # v9's winner at 8192x14336x4096, 2048x4096x4096, 8192x11008x4096

bench ab ab-8192x4096x4096  "$(nt 8192 4096 4096)"  "$C2" "$(sk "$C2")"
bench ab ab-8192x14336x4096 "$(nt 8192 14336 4096)" "$C1" "$(sk "$C1")"
bench ab ab-4096x4096x4096  "$(nt 4096 4096 4096)"  "$C2" "$(sk "$C2")"
bench ab ab-2048x4096x4096  "$(nt 2048 4096 4096)"  "$C1" "$(sk "$C1")"
bench ab ab-8192x11008x4096 "$(nt 8192 11008 4096)" "$C1" "$(sk "$C1")"
bench ab ab-2048x14336x4096 "$(nt 2048 14336 4096)" "$C2" "$(sk "$C2")"
bench ab ab-8192x4096x14336 "$(nt 8192 4096 14336)" "$C2" "$(sk "$C2")"
bench ab ab-8192x8192x8192 "$(nt 8192 8192 8192)" "$C2" "$(sk "$C2")"
gpu_state
