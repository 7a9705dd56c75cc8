#!/usr/bin/env bash
# Run H: STAGES up to 16 (space change only; the kernel text and its hash are unchanged). Run G's ncu showed
# cuBLAS's kernel for 128x4096x4096 keeping 13 stages of 64x64 tiles in a 2-block cluster; ours stopped at 8.
# Tune the M = 128 shapes from deep-ring starts, and the M = 512 weak ones with bayes in the larger space,
# on a copy of the shipped database; then re-time their two best, the winner in turns with cuBLAS.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
cp tuning_db/ktune.db $OUT/h.db
DEEP=( --start "$(wg 64 64 2 false false 13 64 true 16)" --start "$(wg 64 64 1 false false 13 64 true 16)"
       --start "$(wg 64 64 2 true false 13 64 true 16)" --start "$(wg 64 96 1 false false 10 64 true 16)"
       --start "$(wg 64 96 2 false false 10 64 true 16)" )
tune() { # problem budget seed [start...]
  local p=$1 b=$2 s=$3; shift 3
  timeout 80 $B/ktune tune --kernel gemm --problem $p --strategy bayes --budget $b --seed $s "$@" --db $OUT/h.db \
    >> $OUT/tune.log 2>&1
  echo "tune $p rc=$? at $(el)s"
}
for nk in n=4096,k=4096 n=4096,k=11008 n=4096,k=14336 n=11008,k=4096 n=14336,k=4096; do
  tune m=128,$nk,dtype=bf16,layout=nt 14 31 "${DEEP[@]}"
done
tune m=512,n=4096,k=4096,dtype=bf16,layout=nt 12 32
tune m=512,n=11008,k=4096,dtype=bf16,layout=nt 12 33
$B/ktune db query --db $OUT/h.db --top 2 --keys | grep -E ",m=(128|512),n=(4096|11008|14336),out" |
  grep -E "m=128|k=4096,layout=nt,lda=4096,ldb=4096,ldc=(4096|11008),m=512" > /tmp/b/retime.txt
bench_key_lines retime h /tmp/b/retime.txt
gpu_state
