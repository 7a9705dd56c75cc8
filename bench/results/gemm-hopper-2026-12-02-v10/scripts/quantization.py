#!/usr/bin/env python3
"""Round quantization of the persistent wgmma grid on the LLM shapes (no GPU).

For each row of results v9's table (the database best of each LLM shape, run U), the persistent grid holds
132 / CLUSTER blocks; work items are cluster tiles. rounds = items / workers; the last round is full only
when rounds is a whole number, so the grid's useful fraction is rounds / ceil(rounds). Printed beside the
ratio to cuBLAS measured in run U. Usage: quantization.py < ../../gemm-hopper-2026-12-02-v9.md
"""
import math
import re
import sys

SMS = 132
rows = []
for line in sys.stdin:
    m = re.match(r"\| (\d+)×(\d+)×(\d+) \| nt \| (\d+) \| [\d.]+ \| [\d.]+ \| \*\*([\d.]+)\*\* \| [^|]* \| (.*) \|", line)
    if not m:
        continue
    M, N, K, lda, ratio, config = int(m[1]), int(m[2]), int(m[3]), int(m[4]), float(m[5]), m[6]
    if lda != K or "REPACK" in config:
        continue
    tile = re.match(r"(\d+)×(\d+)", config)
    bm, bn = int(tile[1]), int(tile[2])
    cm = 2 if "cluster 2 along M" in config else 1
    cn = 2 if "cluster 2 along N" in config else 1
    persistent = "persistent" in config
    tiles_m, tiles_n = math.ceil(M / bm), math.ceil(N / bn)
    items = math.ceil(tiles_m / cm) * math.ceil(tiles_n / cn)
    workers = SMS // (cm * cn)
    rounds = items / workers
    useful = rounds / math.ceil(rounds)
    rows.append((M, N, K, bm, bn, cm * cn, persistent, items, rounds, useful, ratio))

print("| shape | tile | cluster | persistent | items | rounds on 132 SMs | useful fraction of the last round's grid | ratio to cuBLAS (v9 run U) |")
print("|---|---|---|---|---|---|---|---|")
for M, N, K, bm, bn, c, p, items, rounds, useful, ratio in rows:
    print(f"| {M}×{N}×{K} | {bm}×{bn} | {c} | {'yes' if p else 'no'} | {items} | {rounds:.2f} | {useful:.3f} | {ratio:.3f} |")
full = [r[-1] for r in rows if r[-2] > 0.995]
part = [r[-1] for r in rows if r[-2] <= 0.995]
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
print(f"\nshapes whose last round is full (useful > 0.995): {len(full)}, geometric-mean ratio {gm(full):.3f}")
print(f"shapes with a partial last round: {len(part)}, geometric-mean ratio {gm(part):.3f}")
