#!/usr/bin/env bash
# Run J (gemm v12): run I's SASS shows our consumers executing twice cuBLAS's instructions, most of them
# (R2UR, LOP3, IMAD, VIADD, SHF: about 120 per warp per stage) rebuilding every wgmma descriptor from a generic
# pointer in vector registers; cuBLAS's loop adds to uniform registers. variants/hoisted_descriptors.patch
# computes each operand's descriptor once and adds the stage's, m64 block's and k-step's offsets to it, with the
# warpgroup index broadcast from lane 0. Main and the variant in turns, twice; each run's winner verified; then
# the variant's opcode mix at 512x4096x4096 (ncu SourceCounters).
source "$(dirname "$0")/common.sh"
hd_cases() {
  bench $1 $2-512x4096x4096 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 true false 6 128 true 16)"
  bench $1 $2-512x4096x11008 "$(nt 512 4096 11008)" "$(v9_wgk 128 128 1 1 true false 7 64 false 4)"
  bench $1 $2-128x4096x4096 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)"
  bench $1 $2-8192x4096x4096 "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  bench $1 $2-4096x4096x4096 "$(nt 4096 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 8)"
  bench $1 $2-2048x11008x4096 "$(nt 2048 11008 4096)" "$(v9_wgk 128 168 1 1 true false 5 64 true 8)"
}
main_and_variant hd hoisted_descriptors hd_cases || exit 1
export KTUNE_KERNEL_DIR=$VARIANT_DIR
timeout 100 ncu --clock-control none -k "regex:gemm_wgmma" --launch-skip 5 --launch-count 1 --section SourceCounters \
  --page source --print-source sass --csv $B/bench_gemm_bench --problem "$(nt 512 4096 4096)" \
  --config "$(v9_wgk 128 128 1 1 true false 6 128 true 16)" --out /tmp/b/sass-hd > $OUT/sass-hd-runJ.csv 2>&1
echo "ncu rc=$?"; gzip -9 $OUT/sass-hd-runJ.csv
gpu_state
