# common.sh: what the runs of results v22 share (sourced by run-*.sh): v21's helpers (tcs, nn, nt, turns_case,
# in_turns, kernels_of, gpu_tests, ...), with kernels_of reading v22's variants folder first. The runs carry
# build-carry-lead/{bin,lib}.
source "$(dirname "${BASH_SOURCE[0]}")/../../gemm-hopper-2026-12-04-v21/scripts/common.sh"
V22=bench/results/gemm-hopper-2026-12-04-v22
V18_VARIANTS=$PWD/$V22/variants  # kernels_of (v18's) reads this folder first

# sustain LABEL PROBLEM CONFIG...: every configuration verified, then each and cuBLAS run back to back alone for
# 3 s, twice round, with NVML's SM clock, power and clock-event reasons sampled (`--sustain-ms`); also in turns.
sustain() {
  local label=$1 prob=$2; shift 2; local args=()
  for c in "$@"; do args+=(--config "$c"); done
  timeout 200 $B/bench_gemm_bench --problem "$prob" "${args[@]}" --all-in-turns --sustain-ms 3000 \
    --out /tmp/b/$label > $OUT/sustain-$label.txt 2>&1
  echo "$label rc=$? at $(el)s"; grep -E "sustained|all in turns|FAIL|rror" $OUT/sustain-$label.txt |
    sed -e 's/,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1//; s/,PATH=wgmma//; s/,REDUCE=workspace,SPLIT_K=1//' |
    cut -c1-330
}

# use_tma_build: runs B and C take branch wip/tc-tma-loads' binaries and kernels from build-carry-tma/ (filled here by
# make-carry-tma.sh; carry it beside build-carry-lead), so they run from main's checkout.
use_tma_build() {
  B=build-carry-tma/bin
  export LD_LIBRARY_PATH=$PWD/build-carry-tma/lib:${LD_LIBRARY_PATH:-}
  TMA_KERNELS=$PWD/build-carry-tma/kernels_templated
  export KTUNE_KERNEL_DIR=$TMA_KERNELS KTUNE_BIN=$PWD/$B/ktune
  echo "branch wip/tc-tma-loads at $(cat build-carry-tma/REVISION)"; $B/ktune --version
}

# tma_kernels_of NAME: the branch's kernels for "tma", else a copy of them with v22's variants/NAME.patch applied.
tma_kernels_of() {
  if [ "$1" = tma ]; then echo "$TMA_KERNELS"; return; fi
  rm -rf "/tmp/$1" && mkdir -p "/tmp/$1" && cp -r "$TMA_KERNELS" "/tmp/$1/" &&
    patch -s -p1 -d "/tmp/$1/kernels_templated" < "$PWD/$V22/variants/$1.patch" && echo "/tmp/$1/kernels_templated"
}

# tct BLOCK_M BLOCK_N BLOCK_K WARP_M WARP_N STAGES GROUP_M STAGE_C TMA_LOADS: an aligned mma.sync key with the
# TMA_LOADS knob of branch wip/tc-tma-loads (runs B and C run that branch's binaries and kernels).
tct() {
  echo "BLOCK_K=$3,BLOCK_M=$1,BLOCK_N=$2,GROUP_M=$7,MIN_BLOCKS=1,PREDICATED=false,REDUCE=workspace,SMEM=xor,SPLIT_K=1,STAGES=$6,STAGE_C=$8,TMA_LOADS=$9,VEC=8,WARP_M=$4,WARP_N=$5"
}

# tma_tiles FILE LABEL (in_turns cases): at 4096^3 and 8192^3 nn, main's two best cp.async tiles and the same
# tiles fed by TMA with 3 and 4 stages, each verified, all timed in turns with cuBLAS.
tma_tiles() {
  local n
  for n in 4096 8192; do
    turns_case "$2-$n" "$(nn $n $n $n)" "$(tct 128 256 64 64 64 3 16 true false)" \
      "$(tct 256 128 64 64 64 3 8 true false)" "$(tct 128 256 64 64 64 3 16 true true)" \
      "$(tct 128 256 64 64 64 4 16 true true)" "$(tct 256 128 64 64 64 3 8 true true)" \
      "$(tct 256 128 64 64 64 4 8 true true)"
  done
}
