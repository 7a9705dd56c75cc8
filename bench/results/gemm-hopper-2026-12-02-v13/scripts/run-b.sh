#!/usr/bin/env bash
# Run B (gemm v13): run A's desc32 was faster than main by 0.5-2%, but its SASS still builds every
# descriptor in vector registers and moves it with R2UR. Two steps toward uniform registers, each on top of
# desc32: desc32_base32 computes the ring's shared address from the symbol in 32 bits instead of converting a
# generic pointer; desc32_asmwait also waits on the full barrier in one PTX loop on a 32-bit address. Their
# SASS, then desc32 and both in turns, twice, on three shapes (winners verified).
source "$(dirname "$0")/common.sh"
cases() {
  bench $1 $2-512x4096x4096 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 true false 6 128 true 16)"
  bench $1 $2-128x4096x4096 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)"
  bench $1 $2-4096x4096x4096 "$(nt 4096 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 8)"
}
for v in desc32_base32 desc32_asmwait; do sass_of $v; done
in_turns cases desc32 desc32_base32 desc32_asmwait || exit 1
gpu_state
