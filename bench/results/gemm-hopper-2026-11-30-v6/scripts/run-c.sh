#!/usr/bin/env bash
# Run C (session 5): the tuning database's top-3 configurations of every LLM/square/misaligned shape
# (seeded sweep of run B) re-timed exactly against same-run cuBLAS; a few more 4096^3 / 8192^3 tiles;
# full SASS diff of the cluster stage release (cluster-scope vs CTA-scope arrival).
set -u
cd "$(dirname "$0")/.."
B=build-carry-lead/bin
export LD_LIBRARY_PATH=$PWD/build-carry-lead/lib:${LD_LIBRARY_PATH:-}
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/$B/ktune
t0=$(date +%s)
$B/ktune --version
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
wg() { echo "BLOCK_K=64,BLOCK_M=$1,BLOCK_N=$2,CLUSTER_M=$3,GROUP_M=$8,PATH=wgmma,PERSISTENT=$4,PINGPONG=$5,REDUCE=workspace,SPLIT_K=1,STAGES=$6,STAGE_C=true,WARP_M=$7"; }
EXTRA=( "$(wg 256 128 2 true false 4 128 8)" "$(wg 128 256 2 true false 4 64 16)" "$(wg 128 256 2 true false 3 64 8)" "$(wg 128 192 2 true false 5 64 8)" "$(wg 128 256 2 false false 4 64 8)" )
i=0
while IFS='|' read -r prob c1 c2 c3; do
  i=$((i+1)); args=(--config "$c1" --config "$c2" --config "$c3")
  case "$prob" in *k=4096,*lda=4096,*m=4096,n=4096,*|*k=8192,*m=8192,n=8192,*) for c in "${EXTRA[@]}"; do args+=(--config "$c"); done;; esac
  mkdir -p /tmp/b/p$i
  echo "=== $prob" >> $OUT/exact-top3.txt
  timeout 75 $B/bench_gemm_bench --problem "$prob" "${args[@]}" --out /tmp/b/p$i >> $OUT/exact-top3.txt 2>&1
  rc=$?
  cat /tmp/b/p$i/gemm-bench.md >> $OUT/exact-top3.txt 2>/dev/null
  grep -h "^|" /tmp/b/p$i/gemm-bench.md 2>/dev/null | tail -n +3 >> $OUT/table-rows.md
  echo "p$i rc=$rc at $(( $(date +%s) - t0 ))s: $(grep -h '^|' /tmp/b/p$i/gemm-bench.md 2>/dev/null | tail -1 | cut -d'|' -f2,6-8)"
done < build-carry-lead/top3.txt
for v in old new; do cuobjdump -sass build-carry-lead/sass/pp-cluster2-$v.cubin | sed -e 's@/\* 0x[0-9a-f]* \*/@@; s@/\*[0-9a-f]*\*/@@' > /tmp/b/$v.sass 2>&1; done
echo "sass: old $(wc -l < /tmp/b/old.sass) new $(wc -l < /tmp/b/new.sass) lines"
diff /tmp/b/old.sass /tmp/b/new.sass > $OUT/sass-diff-cluster-release.txt; echo "sass diff lines: $(wc -l < $OUT/sass-diff-cluster-release.txt)"
grep -nE "MEMBAR|FENCE|SYNCS.ARRIVE|CCTL|ERRBAR" /tmp/b/old.sass | head -20 > $OUT/sass-sync-old.txt; grep -nE "MEMBAR|FENCE|SYNCS.ARRIVE|CCTL|ERRBAR" /tmp/b/new.sass | head -20 > $OUT/sass-sync-new.txt
cat $OUT/sass-sync-old.txt; echo ---; cat $OUT/sass-sync-new.txt
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv
