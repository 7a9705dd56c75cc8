# common.sh: the helpers the GEMM reruns share (sourced by run-*.sh). The runs start in the repository root of
# the copy on the GPU machine, with stripped Release binaries in build-carry-lead/bin and libtbb.so.12 in
# build-carry-lead/lib (docs/gpu-machine.md), and write what comes back under $OUT.
# One self-contained file: the dated folders this grew from are at commit edeb949.
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

nn() { echo "m=$1,n=$2,k=$3,dtype=bf16,layout=nn"; }
# tcs BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M STAGE_C [MIN_BLOCKS]: an aligned mma.sync key.
tcs() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=${9:-1},PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,STAGE_C=$8,VEC=8,WARP_M=$4,WARP_N=$5"
}

# bench FILE LABEL PROBLEM CONFIG...: bench_gemm_bench times the configurations (the verified winner in turns
# with cuBLAS); its log and table go to $OUT/FILE.txt, the table's rows also to $OUT/table-rows.md.
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

# database_table DB: every problem's two best configurations in DB re-timed, the faster verified and timed in
# turns with cuBLAS ($OUT/table.txt, $OUT/table-rows.md; summed by table-summary.py).
database_table() {
  $B/ktune db query --db "$1" --top 2 --keys > /tmp/b/winners.txt
  bench_key_lines table p /tmp/b/winners.txt
  echo "table at $(el)s"; wc -l $OUT/table-rows.md
}

# gpu_tests SECONDS FILTER LOG [LINES]: the GPU suite (FILTER a gtest filter, "" for all of it) into $OUT/LOG, its
# tallies and results printed (the last LINES, default 16).
gpu_tests() {
  timeout "$1" $B/ktune_gpu_tests ${2:+--gtest_filter=$2} > "$OUT/$3" 2>&1
  echo "gpu tests rc=$? at $(el)s"; grep -E "^\[  |configs passed|^FAIL" "$OUT/$3" | tail -"${4:-16}" | cut -c1-220
}

# ampere_suite RUN: `bench_gemm_bench --suite ampere` into $OUT/ampere-suite-runRUN.{log,md}.
ampere_suite() {
  timeout 200 $B/bench_gemm_bench --suite ampere --out /tmp/b/ampere > $OUT/ampere-suite-run$1.log 2>&1
  echo "ampere suite rc=$? at $(el)s"; cp /tmp/b/ampere/gemm-bench.md $OUT/ampere-suite-run$1.md; cat $OUT/ampere-suite-run$1.md
}
