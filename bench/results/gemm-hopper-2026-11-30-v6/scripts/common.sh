# common.sh: what every run of results v6 shares (sourced by run-*.sh). The
# runs start in the repository root of the copy on the H200, with stripped
# Release binaries in build-carry-lead/bin and libtbb.so.12 in
# build-carry-lead/lib; they write what comes back under $OUT.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
B=build-carry-lead/bin
export LD_LIBRARY_PATH=$PWD/build-carry-lead/lib:${LD_LIBRARY_PATH:-}
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/$B/ktune
t0=$(date +%s)
mkdir -p /tmp/b
el() { echo $(( $(date +%s) - t0 )); }
gpu_state() { nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; }
$B/ktune --version
gpu_state

# A wgmma configuration key: BLOCK_M BLOCK_N CLUSTER_M PERSISTENT PINGPONG STAGES WARP_M [STAGE_C] [GROUP_M].
wg() {
  echo "BLOCK_K=64,BLOCK_M=$1,BLOCK_N=$2,CLUSTER_M=$3,GROUP_M=${9:-8},PATH=wgmma,PERSISTENT=$4,PINGPONG=$5,REDUCE=workspace,SPLIT_K=1,STAGES=$6,STAGE_C=${8:-false},WARP_M=$7"
}
# An mma.sync configuration key: BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M [MIN_BLOCKS].
tc() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=${8:-1},PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,VEC=8,WARP_M=$4,WARP_N=$5"
}

# bench FILE LABEL PROBLEM CONFIG...: bench_gemm_bench times the configurations
# (the verified winner in turns with cuBLAS); its log and table go to $OUT/FILE.txt,
# the table's rows also to $OUT/table-rows.md.
bench() {
  local file=$1 label=$2 prob=$3; shift 3; local args=()
  for c in "$@"; do args+=(--config "$c"); done
  mkdir -p /tmp/b/$label
  echo "=== $label $prob" >> $OUT/$file.txt
  timeout 90 $B/bench_gemm_bench --problem "$prob" "${args[@]}" --out /tmp/b/$label >> $OUT/$file.txt 2>&1
  local rc=$?
  cat /tmp/b/$label/gemm-bench.md >> $OUT/$file.txt 2>/dev/null
  grep -h "^|" /tmp/b/$label/gemm-bench.md 2>/dev/null | tail -n +3 >> $OUT/table-rows.md
  echo "$label rc=$rc at $(el)s"
  grep -A60 "=== $label " $OUT/$file.txt | grep -E "TFLOP/s|in turns|FAIL|error" | grep -v "^|" |
    sed -e 's/BLOCK_K=64,//; s/,PATH=wgmma//; s/,REDUCE=workspace,SPLIT_K=1//' | cut -c1-200 | head -14
}

# bench_key_lines FILE PREFIX KEYS: one bench per line of KEYS (problem|config|..., the form of
# `ktune db query --keys`), labelled PREFIX1, PREFIX2, ...
bench_key_lines() {
  local i=0 line
  while IFS= read -r line; do
    i=$((i + 1))
    IFS='|' read -r -a keys <<< "$line"
    bench "$1" "$2$i" "${keys[@]}"
  done < "$3"
}

# bench_database_winners DB TOP FILE: every problem's TOP fastest configurations in DB, benched.
bench_database_winners() {
  $B/ktune db query --db "$1" --top "$2" --keys > /tmp/b/winners.txt
  bench_key_lines "$3" p /tmp/b/winners.txt
}

# sass_sync_lines CUBIN: the fences, barriers and mbarrier arrivals of a cubin's SASS.
sass_sync_lines() { cuobjdump -sass "$1" | grep -nE "MEMBAR|FENCE|SYNCS.ARRIVE|CCTL|ERRBAR"; }

# The 4096^3 winner of the seeded database: 128x256 cooperative, 2-block cluster, staged epilogue.
WINNER_4096=$(wg 128 256 2 true false 4 64 true)

# profile KERNEL_REGEX OUTFILE SECTIONS...: ncu of the 4th launch of the kernel in a 4096^3 bench of WINNER_4096.
profile() {
  local kernel=$1 out=$2; shift 2
  timeout 90 ncu --clock-control none -k "regex:$kernel" --launch-skip 3 --launch-count 1 "$@" \
    $B/bench_gemm_bench --problem m=4096,n=4096,k=4096,dtype=bf16,layout=nt --config "$WINNER_4096" --out /tmp/b/ncu \
    > "$out" 2>&1
  echo "ncu $kernel rc=$? at $(el)s"
}

# rowwise_seeds_ab WARM ONLY FILE: bench_rowwise_bench twice on the --only shape(s), timing exactly the WARM
# seeds (no search, no PyTorch); each repetition's seed lines appended to $OUT/FILE and printed.
rowwise_seeds_ab() {
  local rep
  for rep in 1 2; do
    timeout 60 $B/bench_rowwise_bench --out /tmp/b/ab-$rep --warm "$1" --seeds-only --no-torch \
      --only "$2" > /tmp/b/ab-$rep.log 2>&1
    echo "=== rep $rep rc=$? at $(el)s" | tee -a $OUT/$3
    grep -E "D2D|GB/s|seed" /tmp/b/ab-$rep.log | cut -c1-260 | tee -a $OUT/$3
  done
}
