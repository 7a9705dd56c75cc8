#!/usr/bin/env bash
# Run F (gemm v19): main after the block-work helper (gemm_block_work.cuh, shared by the SIMT and mma.sync
# kernels) and the staged epilogue's dropped cp.async wait. The whole GPU suite; issue 5's benchmark
# (`bench_gemm_bench --suite ampere`); the re-seed of the two mma.sync problems (reseed-mma-sweep.json) into its own
# database; its two best per problem re-timed, the faster in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
gpu_tests 400 "" gpu-tests-runF.log 45
timeout 200 $B/bench_gemm_bench --suite ampere --out /tmp/b/ampere > $OUT/ampere-suite-runF.log 2>&1
echo "ampere suite rc=$? at $(el)s"; cp /tmp/b/ampere/gemm-bench.md $OUT/ampere-suite-runF.md; cat $OUT/ampere-suite-runF.md
reseed reseed-mma-sweep.json F
$B/ktune db query --db $OUT/reseed-mma-runF.db --top 2 --keys > /tmp/b/nn-winners.txt
bench_key_lines table nn /tmp/b/nn-winners.txt
echo "table at $(el)s"
gpu_state
