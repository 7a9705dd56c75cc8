#!/usr/bin/env bash
# Run D (gemm v11): what the epilogue costs the big cooperative kernels, as an upper bound on what
# overlapping it with the next tile's main loop could win. The main branch's kernel text is timed three
# ways in one process each: as is; with the staged epilogue's global stores skipped (`nostg`: C still goes
# through registers and shared memory); with the whole epilogue skipped (`noepi`). The two variants are
# sed edits of a copy of kernels_templated on the H200, guarded by a runtime test that is never true
# (alpha == 7), so the code stays but does not run; they write no C and are timed only, never verified.
source "$(dirname "$0")/common.sh"
K=$PWD/kernels_templated
mkdir -p /tmp/nostg /tmp/noepi
cp -r $K /tmp/nostg/ && cp -r $K /tmp/noepi/
sed -i 's/        \*reinterpret_cast<uint4\*>(c) = \*reinterpret_cast<const uint4\*>(staged);/        if (p.alpha == 7.f) *reinterpret_cast<uint4*>(c) = *reinterpret_cast<const uint4*>(staged);/' \
  /tmp/nostg/kernels_templated/gemm/gemm_wgmma.cuh
sed -i 's/          if (interior) store_rows_staged<TOut, EPI, BN, true>/          if (p.alpha == 7.f) store_rows_staged<TOut, EPI, BN, true>/; s/          else store_rows_staged<TOut, EPI, BN, false>/          else if (p.alpha == 7.f) store_rows_staged<TOut, EPI, BN, false>/' \
  /tmp/noepi/kernels_templated/gemm/gemm_wgmma.cuh
diff $K/gemm/gemm_wgmma.cuh /tmp/nostg/kernels_templated/gemm/gemm_wgmma.cuh > $OUT/nostg.diff
diff $K/gemm/gemm_wgmma.cuh /tmp/noepi/kernels_templated/gemm/gemm_wgmma.cuh > $OUT/noepi.diff
wc -l $OUT/*.diff
# v9's keys (no STREAM_K on main).
C2=$(v9_wgk 128 256 2 1 true false 4 64 true 8)
C1=$(v9_wgk 128 256 1 1 true false 4 64 true 8)
C512=$(v9_wgk 128 128 1 1 true false 6 128 true 8)
for variant in asis nostg noepi; do
  case $variant in asis) export KTUNE_KERNEL_DIR=$K ;; *) export KTUNE_KERNEL_DIR=/tmp/$variant/kernels_templated ;; esac
  bench epi-$variant $variant-8192x4096x4096  "$(nt 8192 4096 4096)"  "$C2"
  bench epi-$variant $variant-8192x14336x4096 "$(nt 8192 14336 4096)" "$C1"
  bench epi-$variant $variant-4096x4096x4096  "$(nt 4096 4096 4096)"  "$C2"
  bench epi-$variant $variant-2048x4096x4096  "$(nt 2048 4096 4096)"  "$C1"
  bench epi-$variant $variant-512x4096x4096   "$(nt 512 4096 4096)"   "$C512"
done
gpu_state
