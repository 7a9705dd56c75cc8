#!/usr/bin/env bash
# Run C (gemm v12): the shipped database ranks, at 128x4096x4096, the 64x64 13-stage tile persistent with
# pingpong consumers (one tile per block there: 128 tiles, 132 SMs) 25% above the same tile one block per
# tile, and a 2-block cluster along M (cuBLAS's kernel for this shape) helps the latter (+12%) but hurts the
# former. The same twins under the bench's conditions, twice each: {no cluster, pair along M, pair along N}
# x {one block per tile, persistent, persistent pingpong}; and 512x4096x4096's 128x128 6-stage one-consumer
# tile the same ways.
source "$(dirname "$0")/common.sh"
for rep in 1 2; do
  for c in "1 1" "2 1" "1 2"; do
    set -- $c
    bench twins t$rep-128-c$1$2 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 $1 $2 false false 13 64 true 8)" \
      "$(v9_wgk 64 64 $1 $2 true false 13 64 true 8)" "$(v9_wgk 64 64 $1 $2 true true 13 64 true 8)"
    bench twins t$rep-512-c$1$2 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 $1 $2 false false 6 128 true 8)" \
      "$(v9_wgk 128 128 $1 $2 true false 6 128 true 8)" "$(v9_wgk 128 128 $1 $2 true true 6 128 true 8)"
  done
done
gpu_state
