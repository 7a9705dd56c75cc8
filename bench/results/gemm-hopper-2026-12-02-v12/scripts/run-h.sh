#!/usr/bin/env bash
# Run H (gemm v12): stages of 128 K-elements. At M = 512 our 128x128 tile runs about 3.5% slower per k-tile
# than cuBLAS (section 5), at about 57% of the tensor cores' peak: the main loop waits on its ring.
# variants/stage_k128.patch makes each stage two 64-wide swizzle atoms (two TMA boxes per operand, one
# barrier pair and one wgmma group per 128 K) with half as many stages, the same shared memory: half the
# barrier waits, arrivals and wgmma waits per byte. The configuration's STAGES is what main allots; the
# variant runs STAGES / 2. Main and the variant in turns, twice; each run's winner verified against cuBLAS.
source "$(dirname "$0")/common.sh"
k128_cases() {
  bench $1 $2-512x4096x4096 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 true false 6 128 true 16)"
  bench $1 $2-512x4096x11008 "$(nt 512 4096 11008)" "$(v9_wgk 128 128 1 1 true false 6 64 false 8)"
  bench $1 $2-512x4096x14336 "$(nt 512 4096 14336)" "$(v9_wgk 128 128 1 1 true false 6 64 false 8)"
  bench $1 $2-128x4096x4096 "$(nt 128 4096 4096)" "$(v9_wgk 64 64 1 1 false false 12 64 true 16)"
  bench $1 $2-8192x4096x4096 "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
}
main_and_variant k128 stage_k128 k128_cases || exit 1
gpu_state
