#!/usr/bin/env bash
# make-cubins.sh NAME...: compiles the 512x4096x4096 pair-tile instantiation of gemm_wgmma (128x128, one 128-row
# consumer, 6 stages, GROUP_M 16, no cluster, staged C) with nvcc for sm_90a, from main's kernels ("main") or
# a variant's patched copy, into build-carry-lead/cubins/NAME.cubin, for sass_of on the H200 (there is no
# cuobjdump here). Runs from a scratch folder: nvcc, like NVRTC, searches the including file's folder first.
set -eu
root=$(cd "$(dirname "$0")/../../../.." && pwd)
mkdir -p "$root/build-carry-lead/cubins"
for name in "$@"; do
  work=$(mktemp -d)
  cp -r "$root/kernels_templated" "$work/"
  if [ "$name" != main ]; then
    patch=$root/bench/results/gemm-hopper-2026-12-02-v13/variants/$name.patch
    [ -f "$patch" ] || patch=$root/bench/results/gemm-hopper-2026-12-02-v12/variants/$name.patch
    patch -s -p1 -d "$work/kernels_templated" < "$patch"
  fi
  mkdir "$work/src"
  cat > "$work/src/k.cu" <<'CU'
#include "kernels_templated/gemm/gemm_wgmma.cuh"
template __global__ void ktune_gemm::gemm_wgmma<__nv_bfloat16, __nv_bfloat16, 128, 128, 128, 6, 1, 1, 16, 0, 0,
                                                false, true>(const __grid_constant__ ktune_gemm::TmaMap,
                                                             const __grid_constant__ ktune_gemm::TmaMap,
                                                             const ktune_gemm::GemmParams);
CU
  (cd "$work/src" && nvcc -arch=sm_90a -std=c++17 -I"$work" -cubin k.cu -o "$root/build-carry-lead/cubins/$name.cubin")
  rm -rf "$work"
  echo "$name: build-carry-lead/cubins/$name.cubin"
done
