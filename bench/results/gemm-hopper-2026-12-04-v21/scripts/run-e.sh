#!/usr/bin/env bash
# Run E (gemm v21): issue 5's two mma.sync problems (4096^3 and 8192^3 bf16 nn), tuned further around their
# winners: fifteen configurations the shipped database does not hold (BLOCK_K 32 with 4-6 stages at 128x256 and
# 256x128, 256x128x64 with 4 stages; 64x64 warps, STAGE_C), each verified and timed by `ktune tune --start`
# into a copy of the shipped database; then each problem's three best in that database benched (the fastest
# verified and timed in turns with cuBLAS), twice.
source "$(dirname "$0")/common.sh"
cp tuning_db/ktune.db /tmp/b/mma.db
starts=()
for g in 4 8 16; do for s in 4 5 6; do starts+=(--start "$(tcs 128 256 32 64 64 $s $g true)"); done; done
for s in 4 5 6; do starts+=(--start "$(tcs 256 128 32 64 64 $s 8 true)"); done
for g in 4 8 16; do starts+=(--start "$(tcs 256 128 64 64 64 4 $g true)"); done
for n in 4096 8192; do
  timeout 200 $B/ktune tune --kernel gemm --problem "$(nn $n $n $n)" "${starts[@]}" --budget ${#starts[@]} \
    --db /tmp/b/mma.db > $OUT/tune-$n.log 2>&1
  echo "tune $n rc=$? at $(el)s"; grep -A5 "^#" $OUT/tune-$n.log | cut -c1-200
done
$B/ktune db query --db /tmp/b/mma.db --kernel gemm --top 3 --keys | grep "layout=nn" > /tmp/b/nn-top3.txt
for rep in 1 2; do bench_key_lines table-e$rep nn$rep- /tmp/b/nn-top3.txt; done
cp /tmp/b/mma.db $OUT/mma-runE.db
gpu_state
