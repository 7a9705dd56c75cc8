#!/usr/bin/env bash
# Run L: (1) A/B of the cooperative consumer lag (kConsumerLag 0 = main at ee009a3, 1, 2 k-tiles; kernel trees in
# build-carry-lead/variants/lagN, each run from its own directory: NVRTC resolves the quoted include from the
# working directory first), twice in alternation, on the shapes whose bests are 2-consumer cooperative tiles;
# (2) ncu of the two long-row row-wise bests (softmax 256x524288, rmsnorm 1024x131072), for issue 8.
source "$(dirname "$0")/../../gemm-hopper-2026-11-30-v6/scripts/common.sh"
ROOT=$PWD
CFGS=( "$WINNER_4096" "$(wg 256 128 2 true false 4 128 true)" )
for rep in 1 2; do
  for prob in m=8192,n=4096,k=4096 m=4096,n=4096,k=4096 m=512,n=14336,k=4096; do
    tag=$(echo $prob | tr -d 'mnk=' | tr ',' 'x')
    for lag in 0 1 2; do
      (cd build-carry-lead/variants/lag$lag && B=$ROOT/$B && export KTUNE_KERNEL_DIR=$PWD/kernels_templated &&
       bench lag-ab lag$lag-$tag-r$rep $prob,dtype=bf16,layout=nt "${CFGS[@]}")
    done
  done
done
R=bench/results/gemm-hopper-2026-12-02-v8/rowwise-long-bests.json
for fam in softmax rmsnorm; do
  python3 -c "import json,sys;d=json.load(open('$R'));d['rows']=[r for r in d['rows'] if r['family']=='$fam'];json.dump(d,open('/tmp/b/$fam.json','w'))"
  only=$([ $fam = softmax ] && echo cols=524288 || echo cols=131072)
  timeout 60 ncu --clock-control none -k regex:"${fam}_kernel" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section ComputeWorkloadAnalysis --section SchedulerStats --section LaunchStats \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio",sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active \
    $B/bench_rowwise_bench --out /tmp/b/ncu-$fam --warm /tmp/b/$fam.json --seeds-only --no-torch --only $only \
    > $OUT/ncu-$fam-long.txt 2>&1
  echo "ncu $fam rc=$? at $(el)s"
  grep -E "Duration|DRAM Throughput|Issue Slots|Eligible Warps|Registers Per|Achieved Occ|Theoretical Occ|pipe_xu|stalled_(barrier|long_score|short_score|mio|math|wait|lg|membar)|Cluster Size|Grid Size|Block Size" \
    $OUT/ncu-$fam-long.txt | cut -c1-120 | head -24
done
gpu_state
