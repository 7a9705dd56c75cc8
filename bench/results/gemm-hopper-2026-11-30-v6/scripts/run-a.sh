#!/usr/bin/env bash
# Run A (session 5): CTA-scope cluster stage release (wgmma) + mma.sync per-lane fragment offsets
# (branch s5): exact timings with same-run cuBLAS, SASS of the release, then GemmGpu.* verification.
set -u
cd "$(dirname "$0")/.."
B=build-carry-lead/bin
export LD_LIBRARY_PATH=$PWD/build-carry-lead/lib:${LD_LIBRARY_PATH:-}
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/$B/ktune
t0=$(date +%s)
$B/ktune --version
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
run() { # label problem configs...
  local label=$1 prob=$2; shift 2; local args=()
  for c in "$@"; do args+=(--config "$c"); done
  mkdir -p /tmp/b/$label
  timeout 90 $B/bench_gemm_bench --problem "$prob" "${args[@]}" --out /tmp/b/$label > $OUT/$label.txt 2>&1
  local rc=$?
  cat /tmp/b/$label/gemm-bench.md >> $OUT/$label.txt 2>/dev/null
  echo "$label rc=$rc at $(( $(date +%s) - t0 ))s"
  grep -E "TFLOP/s|FAIL|fail|error" $OUT/$label.txt | grep -v "^|" | cut -c1-220 | head -14
}
wg() { echo "BLOCK_K=64,BLOCK_M=$1,BLOCK_N=$2,CLUSTER_M=$3,GROUP_M=8,PATH=wgmma,PERSISTENT=$4,PINGPONG=$5,REDUCE=workspace,SPLIT_K=1,STAGES=$6,WARP_M=$7"; }
run wg4096 m=4096,n=4096,k=4096,dtype=bf16,layout=nt "$(wg 128 128 1 true true 6 128)" "$(wg 128 128 2 true true 6 128)" \
  "$(wg 128 256 1 true false 4 64)" "$(wg 128 256 2 true false 4 64)" "$(wg 128 256 2 false false 4 64)" "$(wg 128 224 2 false false 4 64)"
run wg8192 m=8192,n=8192,k=8192,dtype=bf16,layout=nt "$(wg 128 224 1 false false 4 64)" "$(wg 128 224 2 false false 4 64)" \
  "$(wg 128 256 2 true false 4 64)" "$(wg 128 128 2 true true 6 128)"
run wg8192x14336 m=8192,n=14336,k=4096,dtype=bf16,layout=nt "$(wg 128 128 1 true true 6 128)" "$(wg 128 128 2 true true 6 128)" "$(wg 128 256 2 true false 4 64)"
tc() { echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=$8,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,VEC=8,WARP_M=$4,WARP_N=$5"; }
CF=( "$(tc 128 128 32 64 64 4 8 1)" "$(tc 128 128 32 64 64 3 8 1)" "$(tc 128 128 32 64 64 5 8 1)" "$(tc 128 128 32 64 64 4 8 2)"
     "$(tc 128 256 32 64 64 4 8 1)" "$(tc 128 256 32 64 64 3 8 1)" "$(tc 256 128 32 64 64 4 8 1)" "$(tc 128 128 32 32 64 4 8 1)"
     "$(tc 128 128 64 32 64 3 8 1)" "$(tc 128 128 16 64 64 6 8 1)" "$(tc 128 256 32 64 64 4 16 1)" )
run mma4096 m=4096,n=4096,k=4096,dtype=bf16,layout=nn "${CF[@]}"
run mma8192 m=8192,n=8192,k=8192,dtype=bf16,layout=nn "${CF[@]}"
for v in old new; do cuobjdump -sass build-carry-lead/sass/pp-cluster2-$v.cubin > /tmp/b/$v.sass 2>&1; done
grep -nE "MEMBAR|FENCE|SYNCS|CCTL|ERRBAR" /tmp/b/old.sass > $OUT/sass-release-old.txt; grep -nE "MEMBAR|FENCE|SYNCS|CCTL|ERRBAR" /tmp/b/new.sass > $OUT/sass-release-new.txt
echo "sass: old $(wc -l < /tmp/b/old.sass) lines, new $(wc -l < /tmp/b/new.sass)"; diff $OUT/sass-release-old.txt $OUT/sass-release-new.txt | cut -c1-160 | head -30
timeout 300 $B/ktune_gpu_tests --gtest_filter='GemmGpu.*' > $OUT/gemm-gpu-tests.log 2>&1; echo "GemmGpu rc=$? at $(( $(date +%s) - t0 ))s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|verified|configurations" $OUT/gemm-gpu-tests.log | tail -12 | cut -c1-220
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv
