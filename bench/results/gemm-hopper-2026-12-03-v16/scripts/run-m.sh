#!/usr/bin/env bash
# Run M (gemm v16): does the cluster scheduling policy take away the cost of launching as clusters (v15 runs
# I-L: 1.8-5.4% with identical tiles and nothing shared; spreading the clusters' items did not help the pair along
# M)? bench_gemm_bench_policy is main's bench with variants/harness_cluster_policy.patch: KTUNE_CLUSTER_POLICY=1
# asks for cudaClusterSchedulingPolicySpread, 2 for LoadBalancing, 0 for the default launch. Every configuration
# is its own bench (so each is verified, then timed in turns with cuBLAS); the policies in turns, twice.
# Then ncu names cuBLAS's kernels (tile, cluster) at three shapes where we trail it.
source "$(dirname "$0")/common.sh"
mkdir -p /tmp/pb && for f in $PWD/$B/*; do ln -sf $f /tmp/pb/; done
ln -sf $PWD/$B/bench_gemm_bench_policy /tmp/pb/bench_gemm_bench
B=/tmp/pb
policy_cases() {
  bench $1 $2-512-none "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 false false 6 128 true 16)"
  bench $1 $2-512-pair-m "$(nt 512 4096 4096)" "$(v9_wgk 128 128 2 1 false false 6 128 true 16)"
  bench $1 $2-512-pair-n "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 2 false false 6 128 true 16)"
  bench $1 $2-8192-none "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)"
  bench $1 $2-8192-pair-m "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  bench $1 $2-128-none "$(nt 128 4096 11008)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)"
  bench $1 $2-128-pair-m "$(nt 128 4096 11008)" "$(v9_wgk 64 64 2 1 true false 13 64 true 16)"
}
for rep in 1 2; do
  for policy in 0 1 2; do
    export KTUNE_CLUSTER_POLICY=$policy; policy_cases turns-policy$policy policy$policy-$rep
  done
done
unset KTUNE_CLUSTER_POLICY; B=build-carry-lead/bin
cublas_kernel() {  # cublas_kernel LABEL PROBLEM CONFIG: ncu's name and duration of cuBLAS's kernel
  timeout 90 ncu --clock-control none -k "regex:nvjet|xmma|cutlass|sm90_|gemv" --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight $B/bench_gemm_bench --problem "$2" --config "$3" --out /tmp/b/ncu-$1 \
    > $OUT/ncu-cublas-$1.txt 2>&1
  echo "ncu $1 rc=$? at $(el)s"; grep -E "^  [a-zA-Z_].*\(|Duration" $OUT/ncu-cublas-$1.txt | cut -c1-140 | head -4
}
cublas_kernel 512x4096x4096 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 false false 6 128 true 16)"
cublas_kernel 2048x4096x4096 "$(nt 2048 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
cublas_kernel 512x11008x4096 "$(nt 512 11008 4096)" "$(v9_wgk 128 168 1 1 true false 5 64 true 16)"
gpu_state
