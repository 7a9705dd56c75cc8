# common.sh: what the runs of results v18 share (sourced by run-*.sh): v17's helpers (bench, turns_case, nn,
# bench_key_lines, in_turns, gpu_state, ...). The runs carry build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-04-v17/scripts/common.sh"
V18=bench/results/gemm-hopper-2026-12-04-v18

# tcp BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M PERSISTENT [MIN_BLOCKS]: an aligned mma.sync key with
# the PERSISTENT knob of variants/persistent_mma.patch (the binaries of runs A and B were built with it).
tcp() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=${9:-1},PERSISTENT=$8,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,VEC=8,WARP_M=$4,WARP_N=$5"
}
# tcs BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M STAGE_C [MIN_BLOCKS]: an aligned mma.sync key with
# main's STAGE_C knob (runs C on).
tcs() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=${9:-1},PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,STAGE_C=$8,VEC=8,WARP_M=$4,WARP_N=$5"
}

# kernels_of NAME: as v15's, reading v18's variants folder first (in_turns uses it).
V18_VARIANTS=$PWD/$V18/variants
eval "v15_$(declare -f kernels_of)"
kernels_of() {
  if [ -f "$V18_VARIANTS/$1.patch" ]; then VARIANTS=$V18_VARIANTS variant_kernels "$1"; else v15_kernels_of "$1"; fi
}

# tcps BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M STAGE_C PERSISTENT [MIN_BLOCKS]: an aligned mma.sync key
# with both knobs (run D on).
tcps() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=${10:-1},PERSISTENT=$9,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,STAGE_C=$8,VEC=8,WARP_M=$4,WARP_N=$5"
}

# gpu_tests SECONDS FILTER LOG [LINES]: the GPU suite (FILTER a gtest filter, "" for all of it) into $OUT/LOG, its
# tallies and results printed (the last LINES, default 16).
gpu_tests() {
  timeout "$1" $B/ktune_gpu_tests ${2:+--gtest_filter=$2} > "$OUT/$3" 2>&1
  echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  |configs passed|^FAIL" "$OUT/$3" | tail -"${4:-16}" | cut -c1-220
}

# reseed SWEEP RUN: `ktune sweep` of $V18/SWEEP into $OUT/reseed-mma-runRUN.db (log sweep-runRUN.log).
reseed() {
  timeout 150 $B/ktune sweep "$V18/$1" --db "$OUT/reseed-mma-run$2.db" > "$OUT/sweep-run$2.log" 2>&1
  echo "sweep rc=$? at $(el)s"; grep -E "budget reached|failed" "$OUT/sweep-run$2.log" | tail -3 | cut -c1-200
}

# merge_reseed RUN: reseed's database merged into the shipped one, the stale gemm results pruned; the nn
# problems' two best (the mma.sync ones) listed in /tmp/b/nn-winners.txt for bench_key_lines.
merge_reseed() {
  $B/ktune db merge "$OUT/reseed-mma-run$1.db" -o tuning_db/ktune.db | tail -1
  $B/ktune db prune --stale --kernel gemm --db tuning_db/ktune.db | tail -1
  $B/ktune db query --db tuning_db/ktune.db --top 2 --keys | grep "layout=nn" > /tmp/b/nn-winners.txt
}
