#!/usr/bin/env bash
# Run A (gemm v15): split-K at small M. The M = 128 shapes move ~4x more bytes from L2 than B's size (64x64
# tiles) and stream B far below the copy rate; a K split lets 128-row tiles as wide as 256 fill the SMs. Each
# bench times the database winner (first) and split-K candidates alone, then verifies the fastest and times it
# in turns with cuBLAS.
source "$(dirname "$0")/common.sh"
for k in 14336 11008 4096; do
  bench splitk-runA m128-k$k "$(nt 128 4096 $k)" \
    "$(wks 64 64 1 1 false 13 64 true 8 1)" \
    "$(wks 128 256 1 1 false 4 64 false 8 8)" \
    "$(wks 128 256 1 2 false 4 64 false 8 8)" \
    "$(wks 128 128 1 1 false 6 64 false 8 4)" \
    "$(wks 64 256 1 1 false 5 64 false 8 4)" \
    "$(wks 128 256 1 1 false 4 64 false 8 4)"
done
bench splitk-runA m128-n14336 "$(nt 128 14336 4096)" \
  "$(wks 128 112 1 1 true 6 64 true 8 1)" \
  "$(wks 128 224 1 1 false 5 64 false 8 2)" \
  "$(wks 128 256 1 1 false 4 64 false 8 2)" \
  "$(wks 64 224 1 1 false 5 64 false 8 1)"
bench splitk-runA m128-n11008 "$(nt 128 11008 4096)" \
  "$(wks 128 88 1 1 false 7 64 true 8 1)" \
  "$(wks 128 168 1 1 false 6 64 false 8 2)" \
  "$(wks 128 176 1 1 false 5 64 false 8 2)"
bench splitk-runA m512-k4096 "$(nt 512 4096 4096)" \
  "$(wks 128 128 1 1 true 6 64 true 4 1)" \
  "$(wks 128 256 1 1 false 4 64 false 8 2)" \
  "$(wks 128 256 2 1 false 4 64 false 8 2)"
bench splitk-runA m512-k14336 "$(nt 512 4096 14336)" \
  "$(wks 128 128 1 1 true 6 128 true 8 1)" \
  "$(wks 128 256 1 1 false 4 64 false 8 2)" \
  "$(wks 128 256 2 1 false 4 64 false 8 2)"
gpu_state
