#!/usr/bin/env bash
# Run V: (1) compute-sanitizer memcheck and racecheck over the new kernel paths on a shape whose tiles are
# partly cut by M and N (a cluster along N, cooperative and pingpong; a 128x168 staged tile); (2) ncu of
# 512x4096x4096: our CLUSTER_N = 2 configuration (cuBLAS's tile, cluster and stages), our database best and
# cuBLAS's kernel, to see why the A-multicast pair runs slower than cuBLAS's.
source "$(dirname "$0")/common.sh"
SAN=/usr/local/cuda/bin/compute-sanitizer
EDGE="m=1000,n=1000,k=512,dtype=bf16,layout=nt"
for tool in memcheck racecheck; do
  timeout 150 $SAN --tool $tool --print-limit 20 $B/bench_gemm_bench --problem $EDGE \
    --config "$(wgk 128 128 1 2 false false 6 64 true 8)" --config "$(wgk 128 128 1 2 true true 6 128 true 8)" \
    --config "$(wgk 128 168 1 1 true false 5 64 true 8)" --out /tmp/b/san-$tool > $OUT/sanitizer-$tool-runV.txt 2>&1
  echo "$tool rc=$? at $(el)s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|hazard|verify" $OUT/sanitizer-$tool-runV.txt | head -6
done
P512="m=512,n=4096,k=4096,dtype=bf16,layout=nt"
PAIR_N=$(wgk 128 128 1 2 false false 6 64 true 8)
BEST=$(wgk 128 128 1 1 true false 6 128 true 16)
for cfg in "$PAIR_N" "$BEST"; do
  timeout 60 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section WarpStateStats \
    $B/bench_gemm_bench --problem $P512 --config "$cfg" --out /tmp/b/ncu >> $OUT/ncu-512x4096x4096-runV.txt 2>&1
  echo "ncu ours rc=$? at $(el)s"
done
timeout 60 ncu --clock-control none -k "regex:nvjet|xmma|cutlass|sm90_" --launch-skip 5 --launch-count 1 --section SpeedOfLight \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section WarpStateStats \
  $B/bench_gemm_bench --problem $P512 --config "$PAIR_N" --out /tmp/b/ncu >> $OUT/ncu-512x4096x4096-runV.txt 2>&1
echo "ncu cublas rc=$? at $(el)s"
grep -E "^  [a-z_0-9]+.*\(|Duration|SM Frequency|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Issue Slots Busy|Executed Ipc A|Grid Size|Cluster Size|Registers Per|Warp Cycles Per Issued" \
  $OUT/ncu-512x4096x4096-runV.txt | cut -c1-110 | head -45
gpu_state
