#!/usr/bin/env python3
"""Summarizes a bench table (the table-rows.md that v6's `bench` helper appends to): each row's ratio to
cuBLAS, and the geometric mean over issue 9's LLM shape set (M in {128, 512, 2048, 8192} x (N, K) in
{(4096, 4096), (11008, 4096), (4096, 11008), (14336, 4096), (4096, 14336)}, layout nt, aligned).

Usage: table-summary.py TABLE_ROWS.md
"""
import math
import sys

LLM_NK = [(4096, 4096), (11008, 4096), (4096, 11008), (14336, 4096), (4096, 14336)]
llm = []
for line in open(sys.argv[1]):
    if not line.startswith("|"):
        continue
    shape, _, layout, ld, tuned, cublas, _, config = [c.strip() for c in line.strip().strip("|").split("|")][:8]
    m, n, k = map(int, shape.split("x"))
    ratio = float(tuned) / float(cublas)
    is_llm = layout == "nt" and ld == f"{k}/{k}/{n}" and m in (128, 512, 2048, 8192) and (n, k) in LLM_NK
    if is_llm:
        llm.append(ratio)
    print(f"{shape:16} {layout} {ld:17} {tuned:>7} {cublas:>7} {ratio:.3f} {'LLM' if is_llm else '   '} "
          f"{config.strip('`')[:120]}")
if llm:
    mean = math.exp(sum(map(math.log, llm)) / len(llm))
    print(f"LLM set: {len(llm)} shapes, geometric mean {mean:.3f}, {min(llm):.3f}-{max(llm):.3f}, "
          f"{sum(r >= 1 for r in llm)} at or above 1.0")
