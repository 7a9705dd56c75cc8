#!/usr/bin/env bash
# Run G (gemm v15): why our multicast pairs lose to no cluster (v9, v11 §4, v12) where cuBLAS's win.
# variants/pair_without_multicast.patch keeps a pair's coupling (each block's stages are released by the
# consumers of both) but drops the multicast: every block loads both whole tiles itself. Main and the variant
# in turns, twice, each bench with the pair along N, the pair along M and no cluster (the control, the same
# kernel text in both) where it applies. If the variant's pairs time like no cluster, the multicast costs what
# the pairs lose; if like main's pairs, the coupling does.
source "$(dirname "$0")/common.sh"
in_turns pair_cases main pair_without_multicast
gpu_state
