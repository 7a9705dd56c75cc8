#!/usr/bin/env bash
# Run E (gemm v14): variants/mma_serpentine.patch (the mma.sync path's mma tiles in serpentine order, so that
# consecutive mma share an operand) against main on the two shipped mma.sync problems with their database
# winners, in turns, twice; then ncu's per-instruction warp-state samples (SourceCounters) of the
# 512x4096x4096 kernel with the TMA-store epilogue, the same configuration as v13 run H.
source "$(dirname "$0")/common.sh"
mma_cases() {
  bench $1 $2-4096nn "$(nn 4096 4096 4096)" \
    "BLOCK_K=64,BLOCK_M=128,BLOCK_N=256,GROUP_M=4,MIN_BLOCKS=1,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=3,VEC=8,WARP_M=64,WARP_N=64"
  bench $1 $2-8192nn "$(nn 8192 8192 8192)" \
    "BLOCK_K=64,BLOCK_M=256,BLOCK_N=128,GROUP_M=8,MIN_BLOCKS=1,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=3,VEC=8,WARP_M=64,WARP_N=64"
}
in_turns mma_cases main mma_serpentine
timeout 120 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --section SourceCounters \
  --section WarpStateStats --page source --print-source sass --csv $B/bench_gemm_bench --problem "$(nt 512 4096 4096)" \
  --config "$(v9_wgk 128 128 1 1 true false 6 128 true 16)" --out /tmp/b/sass-512 > $OUT/sass-512-runE.csv 2>&1
echo "ncu rc=$? at $(el)s"; gzip -9 $OUT/sass-512-runE.csv
gpu_state
