#!/usr/bin/env bash
# Run G (gemm v18): the staged epilogue's fragment writes as one 32-bit store per pair
# (variants/staged_pack32.patch), and with C's 16-byte stores marked streaming (staged_pack32_cs.patch), against
# main in turns, twice: 4096^3 (the database winner and the ampere suite's) and 8192^3 (the database winner).
source "$(dirname "$0")/common.sh"
pack_cases() {
  bench $1 $2-4096 "$(nn 4096 4096 4096)" "$(tcs 256 128 64 64 64 3 8 true)" "$(tcs 128 256 32 64 64 4 4 true)"
  bench $1 $2-8192 "$(nn 8192 8192 8192)" "$(tcs 128 256 64 64 64 3 16 true)"
}
in_turns pack_cases main staged_pack32 staged_pack32_cs
gpu_state
