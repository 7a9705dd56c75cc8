# common.sh: what the runs of results v19 share (sourced by run-*.sh): v18's helpers (tcs, gpu_tests, reseed,
# turns_case, ...). The runs carry build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-04-v18/scripts/common.sh"
V19=bench/results/gemm-hopper-2026-12-04-v19

# tcw BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M STAGE_C PRODUCER: an aligned mma.sync key with the
# PRODUCER knob of variants/producer_warpgroup.patch (a copying warpgroup beside the MMA warps; runs B-D).
tcw() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=1,PREDICATED=false,PRODUCER=$9,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,STAGE_C=$8,VEC=8,WARP_M=$4,WARP_N=$5"
}

# reseed SWEEP RUN: as v18's, reading the sweep file from v19's folder.
reseed() {
  timeout 150 $B/ktune sweep "$V19/$1" --db "$OUT/reseed-mma-run$2.db" > "$OUT/sweep-run$2.log" 2>&1
  echo "sweep rc=$? at $(el)s"; grep -E "budget reached|failed" "$OUT/sweep-run$2.log" | tail -3 | cut -c1-200
}
