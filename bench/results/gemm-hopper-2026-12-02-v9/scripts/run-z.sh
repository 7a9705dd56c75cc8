#!/usr/bin/env bash
# Run Z: split-K = 2 with 128x256 tiles at M = 512, N = 4096. One 128x128 tile per SM reads 256 rows of
# operands per 128x128x64 step; a 128x256 tile split in two along K reads 384 per twice the work, a quarter less
# per FLOP, for a workspace pass (bench/results/gemm-hopper-2026-12-02-v9.md §3: these shapes look bound by the
# L2 reads). Tuned into a copy of the shipped database from these starts (each verified and stored), then each
# problem's two best re-timed, the winner in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
cp tuning_db/ktune.db $OUT/z.db
sk() { echo "$(wgk $1 $2 $3 1 $4 false $5 $6 $7 8)" | sed "s/SPLIT_K=1/SPLIT_K=$8/"; }
for k in 4096 11008 14336; do
  P="m=512,n=4096,k=$k,dtype=bf16,layout=nt"
  starts=()
  for c in "$(sk 128 256 1 false 4 64 false 2)" "$(sk 128 256 2 false 4 64 false 2)" "$(sk 128 256 1 false 3 64 false 2)" \
           "$(sk 256 128 1 false 4 128 false 2)" "$(sk 128 256 1 true 4 64 false 2)" "$(sk 128 256 1 false 4 64 false 4)"; do
    starts+=(--start "$c")
  done
  timeout 90 $B/ktune tune --kernel gemm --problem $P --strategy bayes --budget 8 --db $OUT/z.db "${starts[@]}" \
    > $OUT/tune-z-$k.log 2>&1
  echo "tune k=$k rc=$? at $(el)s"; grep -E "SPLIT_K=[24]" $OUT/tune-z-$k.log | grep -E "TFLOP|us" | head -8 | cut -c1-200
done
$B/ktune db query --db $OUT/z.db --top 2 --keys | grep -E "m=512,n=4096,out" > /tmp/b/z.txt
bench_key_lines zbench z /tmp/b/z.txt | grep -E "in turns|cuBLAS [0-9]"
gpu_state
