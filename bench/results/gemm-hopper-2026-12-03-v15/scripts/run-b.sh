#!/usr/bin/env bash
# Run B (gemm v15): the serpentine mma order adopted on the mma.sync path (v14 §5's prepared run F: it stales the
# two mma.sync problems' results). The every-path verification suite (GemmGpu.EveryPathMatchesCublasOnEdgeShapes:
# SIMT, mma.sync, tf32, split-K, repack on the edge shapes); the re-seed of the two problems (reseed-mma-sweep.json)
# into a fresh database, merged into the shipped one with the stale results pruned; their two best re-timed, the
# faster verified and timed in turns with cuBLAS. Then the tile order at big shapes: each database winner with
# GROUP_M 4, 6, 8, 12 and 16, timed alone, twice. 6 and 12 need binaries built with variants/group_m_steps.patch
# applied (host code: the space; run B's were); main's space keeps {1, 4, 8, 16}.
source "$(dirname "$0")/common.sh"
timeout 90 $B/ktune_gpu_tests --gtest_filter='GemmGpu.EveryPath*' > $OUT/gpu-tests-every-path-runB.log 2>&1
echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  |tally|passed|failed" $OUT/gpu-tests-every-path-runB.log | tail -8
timeout 100 $B/ktune sweep $V15/reseed-mma-sweep.json --db $OUT/reseed-mma-runB.db > $OUT/sweep-runB.log 2>&1
echo "sweep rc=$? at $(el)s"; grep -E "budget reached|failed" $OUT/sweep-runB.log | tail -3 | cut -c1-200
$B/ktune db merge $OUT/reseed-mma-runB.db -o tuning_db/ktune.db | tail -1
$B/ktune db prune --stale --kernel gemm --db tuning_db/ktune.db | tail -1
$B/ktune db query --db tuning_db/ktune.db --top 2 --keys | grep "layout=nn" > /tmp/b/nn-winners.txt
bench_key_lines table nn /tmp/b/nn-winners.txt
echo "table at $(el)s"
# group_orders LABEL M N K CLUSTER_M GROUP_M...: the shape's 128x256 persistent winner at each GROUP_M.
group_orders() {
  local label=$1 m=$2 n=$3 k=$4 cm=$5 configs=() g; shift 5
  for g in "$@"; do configs+=("$(v9_wgk 128 256 $cm 1 true false 4 64 true $g)"); done
  bench group-runB $label "$(nt $m $n $k)" "${configs[@]}"
}
for rep in 1 2; do
  group_orders g4096-$rep 4096 4096 4096 1 8 4 6 12 16
  group_orders g8192x4096-$rep 8192 4096 4096 1 16 4 6 8 12
  group_orders g8192x14336-$rep 8192 14336 4096 1 8 4 6 12 16
  group_orders g8192x4096x14336-$rep 8192 4096 14336 2 8 4 6 12 16
  group_orders g2048x4096x11008-$rep 2048 4096 11008 2 16 4 6 8 12
done
gpu_state
