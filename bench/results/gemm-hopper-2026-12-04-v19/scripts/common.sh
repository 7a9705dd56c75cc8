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

# producer_turns: runs B and C's comparison: main's two best tiles and six PRODUCER configurations, each verified
# and all timed in turns with cuBLAS, at 4096^3 and 8192^3.
producer_turns() {
  local n
  for n in 4096 8192; do
    turns_case p$n "$(nn $n $n $n)" "$(tcw 256 128 64 64 64 3 8 true false)" "$(tcw 128 256 64 64 64 3 16 true false)" \
      "$(tcw 256 128 64 64 64 3 8 true true)" "$(tcw 256 128 64 64 64 4 8 true true)" \
      "$(tcw 128 256 64 64 64 3 16 true true)" "$(tcw 128 256 64 64 64 4 16 true true)" \
      "$(tcw 128 256 32 64 64 4 16 true true)" "$(tcw 128 256 32 64 64 6 16 true true)"
  done
}

# ampere_suite RUN: issue 5's benchmark (`bench_gemm_bench --suite ampere`) into $OUT/ampere-suite-runRUN.{log,md}.
ampere_suite() {
  timeout 200 $B/bench_gemm_bench --suite ampere --out /tmp/b/ampere > $OUT/ampere-suite-run$1.log 2>&1
  echo "ampere suite rc=$? at $(el)s"; cp /tmp/b/ampere/gemm-bench.md $OUT/ampere-suite-run$1.md; cat $OUT/ampere-suite-run$1.md
}

# reseed_and_time SWEEP RUN: reseed, then the re-seed database's two best per problem benched, the faster in turns
# with cuBLAS.
reseed_and_time() {
  reseed "$1" "$2"
  $B/ktune db query --db $OUT/reseed-mma-run$2.db --top 2 --keys > /tmp/b/nn-winners.txt
  bench_key_lines table nn /tmp/b/nn-winners.txt
  echo "table at $(el)s"
}
