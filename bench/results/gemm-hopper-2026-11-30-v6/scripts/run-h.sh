#!/usr/bin/env bash
# Run H (session 5): continue tuning the mma.sync path (bf16 nn 4096^3 and 8192^3) with the new addressing, bayes from
# the run-D configurations; time each problem's top three from the database, the winner in turns with cuBLAS.
set -u
cd "$(dirname "$0")/.."
B=build-carry-lead/bin
export LD_LIBRARY_PATH=$PWD/build-carry-lead/lib:${LD_LIBRARY_PATH:-}
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/$B/ktune
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
$B/ktune --version
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
tc() { echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=1,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,VEC=8,WARP_M=$4,WARP_N=$5"; }
ST=(--start "$(tc 128 128 32 64 64 4 8)" --start "$(tc 256 128 32 64 64 4 8)" --start "$(tc 128 256 32 64 64 3 8)")
cp build-carry-lead/mma.db $OUT/mma.db; timeout 100 $B/ktune tune --kernel gemm --problem m=4096,n=4096,k=4096,dtype=bf16,layout=nn --strategy bayes --budget 80 --seed 7 "${ST[@]}" --db $OUT/mma.db > $OUT/tune.log 2>&1; echo "tune 4096 rc=$? at $(el)s"
timeout 80 $B/ktune tune --kernel gemm --problem m=8192,n=8192,k=8192,dtype=bf16,layout=nn --strategy bayes --budget 32 --seed 8 "${ST[@]}" --db $OUT/mma.db >> $OUT/tune.log 2>&1; echo "tune 8192 rc=$? at $(el)s"
grep -E "best|evaluated" $OUT/tune.log | tail -4 | cut -c1-220
python3 - > /tmp/top3.txt <<PY
import sqlite3
c = sqlite3.connect("$OUT/mma.db")
q = """with r as (select p.key pk, c.key ck, row_number() over (partition by p.id order by median_s) rk
       from results r join problems p on p.id = r.problem_id join configs c on c.id = r.config_id where status = 'ok')
       select pk, group_concat(ck, '|') from (select * from r where rk <= 3 order by pk, rk) group by pk"""
for pk, cks in c.execute(q): print(pk + "|" + cks)
PY
i=0
while IFS='|' read -r prob c1 c2 c3; do
  i=$((i+1)); args=(--config "$c1"); [ -n "${c2:-}" ] && args+=(--config "$c2"); [ -n "${c3:-}" ] && args+=(--config "$c3")
  echo "=== $prob" >> $OUT/mma-top3.txt
  timeout 60 $B/bench_gemm_bench --problem "$prob" "${args[@]}" --out /tmp/b/g$i >> $OUT/mma-top3.txt 2>&1
  cat /tmp/b/g$i/gemm-bench.md >> $OUT/mma-top3.txt 2>/dev/null
done < /tmp/top3.txt
grep -E "TFLOP/s|in turns|FAIL" $OUT/mma-top3.txt | sed -e 's/,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1//' | cut -c1-170; echo "done at $(el)s"
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv
