#!/usr/bin/env bash
# Run D (gemm v20): the mma.sync loop over k-tiles unrolled by two (variants/unroll_k_tiles.patch), so that ptxas
# can schedule one tile's last mma with the next tile's addressing.
source "$(dirname "$0")/common.sh"
mma_variant_run unroll_k_tiles D
gpu_state
