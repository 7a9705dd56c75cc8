#!/usr/bin/env bash
# Run C (gemm v20): the mma.sync loop issues half of its last k-step's mma before the stage barrier
# (variants/split_last_multiply.patch), so the tensor pipe has work queued while the warp waits there; the other
# half still hides the next stage's first ldmatrix. (Ran with these steps written out; the log is
# gpu-every-path-split-runC.log there.)
source "$(dirname "$0")/common.sh"
mma_variant_run split_last_multiply C
gpu_state
