#!/usr/bin/env bash
# Run F: (1) the row-wise long-row bench (softmax 256x524288, rmsnorm 1024x131072, bf16) on the shared-memory
# rows of c51de34, with the D2D copy and PyTorch eager in the same process; (2) more bayes on run E's weakest
# shapes (the small-M ones) and on the mma.sync path, resuming run E's database (build-carry-lead/reseed.db);
# (3) those problems' two best configurations re-timed, the winner in turns with cuBLAS.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
timeout 110 $B/bench_rowwise_bench --out /tmp/b/long --only cols=524288 --only cols=131072 > $OUT/rowwise-long.log 2>&1
echo "rowwise rc=$? at $(el)s"
cp /tmp/b/long/rowwise-bench.md $OUT/rowwise-long-bench.md 2>/dev/null
grep -E "D2D|\| (softmax|rmsnorm) " $OUT/rowwise-long.log | tail -6 | cut -c1-220
cp build-carry-lead/reseed.db $OUT/tuned.db
tune() { # problem budget seed
  timeout 100 $B/ktune tune --kernel gemm --problem $1 --strategy bayes --budget $2 --seed $3 --db $OUT/tuned.db \
    >> $OUT/tune.log 2>&1
  echo "tune $1 rc=$? at $(el)s"
}
for p in m=128,n=4096,k=4096 m=128,n=4096,k=11008 m=128,n=4096,k=14336 m=512,n=4096,k=4096 m=512,n=11008,k=4096; do
  tune $p,dtype=bf16,layout=nt 20 21
done
tune m=4096,n=4096,k=4096,dtype=bf16,layout=nn 32 22
tune m=8192,n=8192,k=8192,dtype=bf16,layout=nn 12 23
$B/ktune db query --db $OUT/tuned.db --top 2 --keys |
  grep -E "k=(4096|11008|14336),layout=nt,.*,m=128,n=4096,out|k=4096,layout=nt,.*,m=512,n=(4096|11008),out|layout=nn" \
  > /tmp/b/retime.txt
bench_key_lines retime q /tmp/b/retime.txt
gpu_state
