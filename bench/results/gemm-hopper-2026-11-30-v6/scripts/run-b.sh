#!/usr/bin/env bash
# Run B: STAGE_C A/B exact timings, wgmma GPU verification (with STAGE_C picks), the seeded LLM sweep
# into a fresh database (merged into tuning_db/ktune.db afterwards).
source "$(dirname "$0")/common.sh"
both() { wg "$@" false; wg "$@" true; }  # a tile without and with the staged epilogue
mapfile -t SQ < <(both 128 128 2 true true 6 128; both 128 128 1 true true 6 128; both 128 256 1 true false 4 64
                  both 128 256 2 true false 4 64; both 128 224 1 false false 4 64)
bench exact-square sq4096 m=4096,n=4096,k=4096,dtype=bf16,layout=nt "${SQ[@]}"
bench exact-square sq8192 m=8192,n=8192,k=8192,dtype=bf16,layout=nt "${SQ[@]}"
mapfile -t LL < <(both 128 128 2 true true 6 128; both 128 128 1 true true 6 128; both 128 256 2 true false 4 64
                  both 64 128 1 true false 8 64)
bench exact-llm l2048x11008 m=2048,n=11008,k=4096,dtype=bf16,layout=nt "${LL[@]}"
bench exact-llm l512x11008 m=512,n=11008,k=4096,dtype=bf16,layout=nt "${LL[@]}"
bench exact-llm l128x14336 m=128,n=14336,k=4096,dtype=bf16,layout=nt "${LL[@]}"
timeout 290 $B/ktune_gpu_tests --gtest_filter='GemmGpu.WgmmaPathMatchesCublasOnEdgeShapes' > $OUT/gemm-gpu-tests.log 2>&1
echo "GemmGpu wgmma rc=$? at $(el)s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|configs passed" $OUT/gemm-gpu-tests.log | tail -8 | cut -c1-220
timeout $(( 585 - $(el) )) $B/ktune sweep bench/hopper-llm-sweep-seeded.json --db $OUT/hopper.db > $OUT/sweep.log 2>&1
echo "sweep rc=$? at $(el)s"
tail -30 $OUT/sweep.log | cut -c1-220
gpu_state
