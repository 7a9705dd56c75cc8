#!/usr/bin/env bash
# Run E (gemm v18): STAGE_C on C rows that are not 16-byte aligned too (element row stores). The every-path suite;
# issue 5's benchmark (`bench_gemm_bench --suite ampere`: mma.sync 4096^3 and 8192^3, SIMT fp32 4096^3, misaligned
# ld 4100 / 4097 against the aligned 4096^3, each tuned and timed in turns with cuBLAS); the re-seed of the two
# mma.sync problems (reseed-mma-sweep.json, run C's) into its own database; its two best per problem re-timed, the
# faster in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
gpu_tests 120 'GemmGpu.EveryPath*' gpu-tests-runE.log 10
timeout 400 $B/bench_gemm_bench --suite ampere --out /tmp/b/ampere > $OUT/ampere-suite-runE.log 2>&1
echo "ampere suite rc=$? at $(el)s"; cp /tmp/b/ampere/gemm-bench.md $OUT/ampere-suite-runE.md; cat $OUT/ampere-suite-runE.md
reseed reseed-mma-sweep.json E
$B/ktune db query --db $OUT/reseed-mma-runE.db --top 2 --keys > /tmp/b/nn-winners.txt
bench_key_lines table nn /tmp/b/nn-winners.txt
echo "table at $(el)s"
gpu_state
