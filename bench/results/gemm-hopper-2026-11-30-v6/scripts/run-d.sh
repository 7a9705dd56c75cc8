#!/usr/bin/env bash
# Run D (session 5): GPU verification of everything that changed (GemmGpu.*: mma.sync copy addressing,
# harness refactor; rowwise GPU tests: harness refactor); every LLM/square/misaligned
# shape's top-3 database configurations re-timed with the winner and cuBLAS interleaved; mma.sync timings.
set -u
cd "$(dirname "$0")/.."
B=build-carry-lead/bin
export LD_LIBRARY_PATH=$PWD/build-carry-lead/lib:${LD_LIBRARY_PATH:-}
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/$B/ktune
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
$B/ktune --version
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
timeout 340 $B/ktune_gpu_tests --gtest_filter='GemmGpu.*:Rowwise*' > $OUT/gpu-tests.log 2>&1; echo "gpu tests rc=$? at $(el)s"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED|configs passed|verified" $OUT/gpu-tests.log | tail -16 | cut -c1-200
python3 - > /tmp/top3.txt <<'PY' || cp build-carry-lead/top3.txt /tmp/top3.txt
import sqlite3
c = sqlite3.connect("tuning_db/ktune.db")
q = """with r as (select p.key pk, c.key ck, row_number() over (partition by p.id order by median_s) rk
       from results r join problems p on p.id = r.problem_id join configs c on c.id = r.config_id where status = 'ok')
       select pk, group_concat(ck, '|') from (select * from r where rk <= 3 order by pk, rk) group by pk"""
for pk, cks in c.execute(q): print(pk + "|" + cks)
PY
echo "top3 lines: $(wc -l < /tmp/top3.txt)"
i=0
while IFS='|' read -r prob c1 c2 c3; do
  i=$((i+1)); args=(--config "$c1"); [ -n "${c2:-}" ] && args+=(--config "$c2"); [ -n "${c3:-}" ] && args+=(--config "$c3")
  mkdir -p /tmp/b/p$i
  echo "=== $prob" >> $OUT/exact-top3.txt
  timeout 60 $B/bench_gemm_bench --problem "$prob" "${args[@]}" --out /tmp/b/p$i >> $OUT/exact-top3.txt 2>&1
  cat /tmp/b/p$i/gemm-bench.md >> $OUT/exact-top3.txt 2>/dev/null
  grep -h "^|" /tmp/b/p$i/gemm-bench.md 2>/dev/null | tail -n +3 >> $OUT/table-rows.md
done < /tmp/top3.txt
echo "table at $(el)s: $(wc -l < $OUT/table-rows.md) rows"
tc() { echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=$8,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,VEC=8,WARP_M=$4,WARP_N=$5"; }
CF=( "$(tc 128 128 32 64 64 4 8 1)" "$(tc 256 128 32 64 64 4 8 1)" "$(tc 128 256 32 64 64 4 8 1)" "$(tc 128 256 32 64 64 3 8 1)" "$(tc 128 128 32 64 64 3 8 1)" )
for s in 4096 8192; do
  args=(); for c in "${CF[@]}"; do args+=(--config "$c"); done
  echo "=== mma $s" >> $OUT/mma-exact.txt
  timeout 60 $B/bench_gemm_bench --problem m=$s,n=$s,k=$s,dtype=bf16,layout=nn "${args[@]}" --out /tmp/b/mma$s >> $OUT/mma-exact.txt 2>&1
  cat /tmp/b/mma$s/gemm-bench.md >> $OUT/mma-exact.txt 2>/dev/null
done
grep -E "TFLOP/s|in turns|FAIL" $OUT/mma-exact.txt | sed -e 's/,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1//' | cut -c1-170; echo "mma at $(el)s"
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv
W="BLOCK_K=64,BLOCK_M=128,BLOCK_N=256,CLUSTER_M=2,GROUP_M=8,PATH=wgmma,PERSISTENT=true,PINGPONG=false,REDUCE=workspace,SPLIT_K=1,STAGES=4,STAGE_C=true,WARP_M=64"
# How much of a tile's time is the epilogue: the same tile at K = 4096, 8192, 16384 (the main loop doubles, the epilogue stays).
for k in 4096 8192 16384; do
  timeout 40 $B/bench_gemm_bench --problem m=4096,n=4096,k=$k,dtype=bf16,layout=nt --config "$W" --out /tmp/b/k$k > /tmp/b/k$k.txt 2>&1
  echo "k=$k: $(grep -hE 'in turns|cuBLAS' /tmp/b/k$k.txt | tr '\n' ' ' | cut -c1-200)" | tee -a $OUT/mma-exact.txt
done
S="--section WarpStateStats --section InstructionStats --section SourceCounters --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
left=$(( 585 - $(el) ))
if [ $left -gt 60 ]; then
  timeout $(( left - 10 )) ncu --clock-control none -k regex:gemm_wgmma --launch-skip 3 --launch-count 1 $S --export /tmp/b/ours $B/bench_gemm_bench --problem m=4096,n=4096,k=4096,dtype=bf16,layout=nt --config "$W" --out /tmp/b/ncu3 > /tmp/b/ncu3.log 2>&1; echo "ncu stalls ours rc=$? at $(el)s"
  ncu --import /tmp/b/ours.ncu-rep --page details > $OUT/ncu-stalls-wgmma.txt 2>&1
  ncu --import /tmp/b/ours.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/ncu-source-wgmma.csv.gz; echo "source csv: $(zcat $OUT/ncu-source-wgmma.csv.gz | wc -l) lines"
fi
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv
