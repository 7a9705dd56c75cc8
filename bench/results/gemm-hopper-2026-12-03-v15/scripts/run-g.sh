#!/usr/bin/env bash
# Run G (gemm v15, prepared): why our multicast pairs lose to no cluster (v9, v11 §4, v12) where cuBLAS's win.
# variants/pair_without_multicast.patch keeps a pair's coupling (each block's stages are released by the
# consumers of both) but drops the multicast: every block loads both whole tiles itself. Main and the variant
# in turns, twice, each bench with the pair along N, the pair along M and no cluster (the control, the same
# kernel text in both) where it applies. If the variant's pairs time like no cluster, the multicast costs what
# the pairs lose; if like main's pairs, the coupling does.
source "$(dirname "$0")/common.sh"
pair_cases() {
  bench $1 $2-512x4096x4096 "$(nt 512 4096 4096)" "$(v9_wgk 128 128 1 1 false false 6 128 true 16)" \
    "$(v9_wgk 128 128 1 2 false false 6 128 true 16)" "$(v9_wgk 128 128 2 1 false false 6 128 true 16)"
  bench $1 $2-8192x4096x4096 "$(nt 8192 4096 4096)" "$(v9_wgk 128 256 1 1 true false 4 64 true 16)" \
    "$(v9_wgk 128 256 2 1 true false 4 64 true 8)"
  bench $1 $2-128x4096x11008 "$(nt 128 4096 11008)" "$(v9_wgk 64 64 1 1 false false 13 64 true 16)" \
    "$(v9_wgk 64 64 2 1 true false 13 64 true 16)"
}
in_turns pair_cases main pair_without_multicast
gpu_state
