#!/usr/bin/env bash
# Run T (gemm v16, prepared, not run): do our pairs read like cuBLAS's when launched like cuBLAS's? cuBLAS
# launches its pairs on a 2-D grid, (2, 64, 1) at 512x4096x4096 (runs M, S), with the rank along x and the
# cluster along y; ours use a 1-D grid of 128. Run S found cuBLAS's pair reading 25% fewer L2 sectors than our
# no-cluster kernel with no extra cross-partition traffic, and ours reading more than no cluster.
#   variants/pair_grid_2d.patch     the kernel: first item blockIdx.y, stride gridDim.y for clusters
#   variants/harness_grid_2d.patch  the harness: grid (CLUSTER, clusters, splits) for wgmma in clusters
# The two go together (the kernel variant on a 1-D grid would give every cluster item 0). Build the bench first:
#   git apply bench/results/gemm-hopper-2026-12-03-v16/variants/harness_grid_2d.patch &&
#   cmake --build build --target bench_gemm_bench && strip -o build-carry-lead/bin/bench_gemm_bench_grid2d \
#   build/bin/bench_gemm_bench && git checkout kernels_templated/gemm/gpu/gemm_harness.cpp &&
#   cmake --build build --target bench_gemm_bench
# Then, on the H200: export OUT; bash .../run-t.sh (carrying build-carry-lead/{bin,lib}). Each pair is its own
# bench, so each is verified; main and the variant in turns, twice; then ncu's L2 counters (run S's) of each.
source "$(dirname "$0")/common.sh"
V16_VARIANTS=$PWD/$V16/variants
GRID2D_KERNELS=$(VARIANTS=$V16_VARIANTS variant_kernels pair_grid_2d) || exit 1
mkdir -p /tmp/grid2d && for f in $PWD/$B/*; do ln -sf $f /tmp/grid2d/; done
ln -sf $PWD/$B/bench_gemm_bench_grid2d /tmp/grid2d/bench_gemm_bench
grid_cases() {
  bench $1 $2-512-pair-n "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 2 false false 6 64 true 16)"
  bench $1 $2-512-pair-m "$(nt 512 4096 4096)" "$(v9_wgk 128 128 2 1 false false 6 64 true 16)"
  bench $1 $2-2048-pair-m "$(nt 2048 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  bench $1 $2-8192-pair-m "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
}
for rep in 1 2; do
  (export KTUNE_KERNEL_DIR=$PWD/kernels_templated; grid_cases turns-main main$rep)
  (B=/tmp/grid2d; export KTUNE_KERNEL_DIR=$GRID2D_KERNELS; grid_cases turns-grid2d grid2d$rep)
done
M="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum"
counters() {  # counters LABEL CONFIG (B and KTUNE_KERNEL_DIR from the caller)
  timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --metrics $M \
    $B/bench_gemm_bench --problem "$(nt 512 4096 4096)" --config "$2" --out /tmp/b/ncu-$1 > $OUT/ncu-$1.txt 2>&1
  echo "ncu $1 rc=$?"; grep -E "__" $OUT/ncu-$1.txt | grep -v PROF | sed 's/  */ /g' | cut -c1-100
}
for who in main grid2d; do
  if [ $who = main ]; then b=$B; k=$PWD/kernels_templated; else b=/tmp/grid2d; k=$GRID2D_KERNELS; fi
  (B=$b; export KTUNE_KERNEL_DIR=$k
   counters $who-pair-n "$(v9_wgk 128 128 1 2 false false 6 64 true 16)"
   counters $who-pair-m "$(v9_wgk 128 128 2 1 false false 6 64 true 16)")
done
gpu_state
