#!/usr/bin/env bash
# Run A (gemm v10): is the persistent grid's last, partial round what separates the big LLM shapes from cuBLAS?
# Each pair times one database-best configuration on a shape whose tile count leaves the last round of the
# 132-SM persistent grid partly idle (M = 8192, 4096, 2048: 7.76, 3.88, 27.15, 1.94 rounds) and on the same
# shape with M grown to fill that round exactly (8448, 4224, 2112: 8.00, 4.00, 28.00, 2.00 rounds), each
# against cuBLAS in turns. With a quantization loss, our time stays nearly flat across a pair while cuBLAS's
# grows with the work, and our ratio rises at the filled shape.
source "$(dirname "$0")/common.sh"
C2=$(wgk 128 256 2 1 true false 4 64 true 8)   # 8192x4096x4096's database best (pairs along M)
C1=$(wgk 128 256 1 1 true false 4 64 true 8)   # 4096^3's, 8192x14336x4096's, 2048x4096x4096's
bench quant q-8192  "$(nt 8192 4096 4096)"  "$C2" "$C1"
bench quant q-8448  "$(nt 8448 4096 4096)"  "$C2" "$C1"
bench quant q-4096  "$(nt 4096 4096 4096)"  "$C1"
bench quant q-4224  "$(nt 4224 4096 4096)"  "$C1"
bench quant q-8192n "$(nt 8192 14336 4096)" "$C1"
bench quant q-8448n "$(nt 8448 14336 4096)" "$C1"
bench quant q-2048  "$(nt 2048 4096 4096)"  "$C1"
bench quant q-2112  "$(nt 2112 4096 4096)"  "$C1"
gpu_state
