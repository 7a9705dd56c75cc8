#!/usr/bin/env bash
# Run B (session 5): STAGE_C epilogue A/B exact timings (same-run cuBLAS), full SASS diff of the
# cluster release change, wgmma GPU verification (with STAGE_C picks), seeded LLM sweep into a fresh DB.
set -u
cd "$(dirname "$0")/.."
B=build-carry-lead/bin
export LD_LIBRARY_PATH=$PWD/build-carry-lead/lib:${LD_LIBRARY_PATH:-}
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/$B/ktune
t0=$(date +%s)
$B/ktune --version
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
run() { # out label problem configs...
  local out=$1 label=$2 prob=$3; shift 3; local args=()
  for c in "$@"; do args+=(--config "$c"); done
  mkdir -p /tmp/b/$label
  echo "=== $label $prob" >> $OUT/$out.txt
  timeout 90 $B/bench_gemm_bench --problem "$prob" "${args[@]}" --out /tmp/b/$label >> $OUT/$out.txt 2>&1
  local rc=$?
  cat /tmp/b/$label/gemm-bench.md >> $OUT/$out.txt 2>/dev/null
  echo "$label rc=$rc at $(( $(date +%s) - t0 ))s"
  grep -A40 "=== $label" $OUT/$out.txt | grep -E "TFLOP/s|FAIL|fail|error" | grep -v "^|" | sed -e 's/BLOCK_K=64,//; s/,PATH=wgmma//; s/,REDUCE=workspace,SPLIT_K=1//' | cut -c1-200 | head -14
}
wg() { echo "BLOCK_K=64,BLOCK_M=$1,BLOCK_N=$2,CLUSTER_M=$3,GROUP_M=8,PATH=wgmma,PERSISTENT=$4,PINGPONG=$5,REDUCE=workspace,SPLIT_K=1,STAGES=$6,STAGE_C=$8,WARP_M=$7"; }
both() { echo "$(wg "$@" false)"; echo "$(wg "$@" true)"; }
mapfile -t SQ < <(both 128 128 2 true true 6 128; both 128 128 1 true true 6 128; both 128 256 1 true false 4 64; both 128 256 2 true false 4 64; both 128 224 1 false false 4 64)
run exact-square sq4096 m=4096,n=4096,k=4096,dtype=bf16,layout=nt "${SQ[@]}"
run exact-square sq8192 m=8192,n=8192,k=8192,dtype=bf16,layout=nt "${SQ[@]}"
mapfile -t LL < <(both 128 128 2 true true 6 128; both 128 128 1 true true 6 128; both 128 256 2 true false 4 64; both 64 128 1 true false 8 64)
run exact-llm l2048x11008 m=2048,n=11008,k=4096,dtype=bf16,layout=nt "${LL[@]}"
run exact-llm l512x11008 m=512,n=11008,k=4096,dtype=bf16,layout=nt "${LL[@]}"
run exact-llm l128x14336 m=128,n=14336,k=4096,dtype=bf16,layout=nt "${LL[@]}"
for v in old new; do cuobjdump -sass build-carry-lead/sass/pp-cluster2-$v.cubin | sed -e 's@/\* 0x[0-9a-f]* \*/@@; s@/\*[0-9a-f]*\*/@@' > /tmp/b/$v.sass 2>&1; done
diff /tmp/b/old.sass /tmp/b/new.sass > $OUT/sass-diff-cluster-release.txt; echo "sass diff lines: $(wc -l < $OUT/sass-diff-cluster-release.txt)"; head -40 $OUT/sass-diff-cluster-release.txt | cut -c1-150
timeout 290 $B/ktune_gpu_tests --gtest_filter='GemmGpu.WgmmaPathMatchesCublasOnEdgeShapes' > $OUT/gemm-gpu-tests.log 2>&1; echo "GemmGpu wgmma rc=$? at $(( $(date +%s) - t0 ))s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|mismatch|wrong" $OUT/gemm-gpu-tests.log | tail -8 | cut -c1-220
left=$(( 585 - ($(date +%s) - t0) ))
timeout $left $B/ktune sweep bench/hopper-llm-sweep-seeded.json --db $OUT/hopper.db > $OUT/sweep.log 2>&1; echo "sweep rc=$? at $(( $(date +%s) - t0 ))s"
tail -30 $OUT/sweep.log | cut -c1-220
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv
