#!/usr/bin/env bash
# make-carry-tma.sh (run here, not on the GPU machine): builds branch wip/tc-tma-loads in a worktree and fills
# build-carry-tma/ with what runs B and C need from it, so that they run from main's checkout: stripped ktune,
# ktune_gpu_tests and bench_gemm_bench, libtbb, the branch's kernels_templated (read by NVRTC at run time) and
# REVISION (the branch commit all of it comes from). Carry build-carry-tma next to build-carry-lead.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
wt=${TMA_WORKTREE:-/tmp/tma-wt}
out=$root/build-carry-tma
[ -d "$wt" ] || git -C "$root" worktree add -q "$wt" wip/tc-tma-loads
git -C "$wt" checkout -q wip/tc-tma-loads
cmake -S "$wt" -B "$wt/build" -G Ninja -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc > /dev/null
ninja -C "$wt/build" ktune ktune_gpu_tests bench_gemm_bench > /dev/null
rm -rf "$out" && mkdir -p "$out/bin" "$out/lib"
for f in ktune ktune_gpu_tests bench_gemm_bench; do strip -o "$out/bin/$f" "$wt/build/bin/$f"; done
cp "$root/build-carry-lead/lib/"libtbb* "$out/lib/"
git -C "$wt" archive HEAD kernels_templated | tar -x -C "$out"
git -C "$wt" rev-parse HEAD > "$out/REVISION"
du -sh "$out"
