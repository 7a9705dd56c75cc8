# common.sh: what the runs of rowwise v7 share (sourced by run-*.sh): v6's setup (carried binaries, $B, $OUT
# helpers), the row-wise GPU tests, and one all-shapes bench run.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
V=bench/results/rowwise-2026-12-02-v7

# rowwise_gpu_tests: RowwiseGpu.* into $OUT/rowwise-gpu-tests.log, its summary lines printed.
rowwise_gpu_tests() {
  timeout 170 $B/ktune_gpu_tests --gtest_filter='Rowwise*' --gtest_brief=1 > $OUT/rowwise-gpu-tests.log 2>&1
  echo "tests rc=$? at $(el)s"
  grep -E "verified|not launchable|Failure|FAILED|PASSED|rror" $OUT/rowwise-gpu-tests.log | head -20
}

# rowwise_table WARM: bench_rowwise_bench over all 13 shapes warm-started from WARM; report, JSON and progress
# to $OUT, the table's rows printed.
rowwise_table() {
  timeout 400 $B/bench_rowwise_bench --out /tmp/b/all --warm "$1" > $OUT/rowwise-all.log 2>&1
  echo "bench rc=$? at $(el)s"
  for f in rowwise-bench.md rowwise-bench.json rowwise-progress.jsonl; do cp /tmp/b/all/$f $OUT/ 2>/dev/null; done
  grep -E "D2D|^\| (softmax|rmsnorm|reduce) " $OUT/rowwise-bench.md | cut -c1-150
}
