#!/usr/bin/env bash
# Run E (gemm v19): variants/stage_mbarriers.patch (per-stage full/empty mbarriers instead of the block barrier of
# every k-tile; the bench and GPU-suite binaries built with it carry the suffix _split, their shared memory counting
# the barriers) against main, each in turns with cuBLAS, twice, at 4096^3 and 8192^3 on main's three best tiles;
# then the every-path GPU suite on the variant.
source "$(dirname "$0")/common.sh"
VK=$(VARIANTS=$PWD/$V19/variants variant_kernels stage_mbarriers) || exit 1
KTUNE_KERNEL_DIR=$VK timeout 60 $B/bench_gemm_bench_split --problem "$(nn 4096 4096 4096)" \
  --config "$(tcs 256 128 64 64 64 3 8 true)" --out /tmp/b/one > $OUT/one.txt 2>&1
rc=$?; echo "one rc=$rc at $(el)s"; grep -E "TFLOP/s|rror|FAIL|hang" $OUT/one.txt | cut -c1-200 | head -5
[ $rc -eq 0 ] || { gpu_state; exit 1; }  # a hang would hold every run after it
tiles() { echo "$(tcs 256 128 64 64 64 3 8 true)" "$(tcs 128 256 64 64 64 3 16 true)" "$(tcs 128 256 32 64 64 4 16 true)"; }
for rep in 1 2; do
  for n in 4096 8192; do
    KTUNE_KERNEL_DIR=$PWD/kernels_templated turns_case main$n-$rep "$(nn $n $n $n)" $(tiles)
    KTUNE_KERNEL_DIR=$VK TURNS_BENCH=$B/bench_gemm_bench_split turns_case split$n-$rep "$(nn $n $n $n)" $(tiles)
  done
done
KTUNE_KERNEL_DIR=$VK timeout 170 $B/ktune_gpu_tests_split --gtest_filter='GemmGpu.EveryPath*' > $OUT/gpu-tests-runE.log 2>&1
echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  |configs passed|^FAIL" $OUT/gpu-tests-runE.log | tail -10 | cut -c1-200
gpu_state
