#!/usr/bin/env python3
# Generates synthetic_gemm_like.json: a SYNTHETIC recorded space in ktune's
# recording format for tests and demos of `ktune bench-strategies`. The times
# come from an analytic formula with seeded noise, NOT from any GPU.
import json, math, random

rng = random.Random(20261129)
params = {"BLOCK_M": [16, 32, 64, 128], "BLOCK_N": [16, 32, 64, 128],
          "BLOCK_K": [8, 16, 32, 64], "STAGES": [1, 2, 3, 4], "VEC": [1, 2, 4, 8]}
smem_max = 98304
constraint = "STAGES * (BLOCK_M + BLOCK_N) * BLOCK_K * 4 <= smem_max"

def time_of(c):
    bm, bn, bk, st, vec = c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], c["STAGES"], c["VEC"]
    m = n = k = 2048
    tiles = math.ceil(m / bm) * math.ceil(n / bn)
    waves = math.ceil(tiles / (132 * max(1, min(8, 65536 // (bm * bn))))) or 1
    compute = 2 * m * n * k / 20e12 * (1 + 0.5 / st) * (64 / min(bm, bn)) ** 0.35
    memory = (m * k * n / bn + k * n * m / bm) * 4 / 4e12 * (2.0 / (1 + math.log2(vec))) * (16 / bk) ** 0.2
    return max(compute * waves / max(1, tiles / 132 / 8), memory) + 4e-6

results = []
for bm in params["BLOCK_M"]:
    for bn in params["BLOCK_N"]:
        for bk in params["BLOCK_K"]:
            for st in params["STAGES"]:
                for vec in params["VEC"]:
                    c = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "STAGES": st, "VEC": vec}
                    if st * (bm + bn) * bk * 4 > smem_max:
                        continue
                    u = rng.random()
                    if vec == 8 and bk == 8:
                        results.append({"config": c, "status": "compile_error", "message": "synthetic: VEC 8 needs BLOCK_K >= 16"})
                    elif u < 0.02:
                        results.append({"config": c, "status": "launch_error", "message": "synthetic random failure"})
                    else:
                        t = time_of(c) * math.exp(rng.gauss(0, 0.03))
                        results.append({"config": c, "status": "ok", "time": {"median_s": float("%.6g" % t), "repetitions": 1}})

space = {"format": "ktune-space/1", "constants": {"smem_max": smem_max},
         "parameters": [{"name": n, "kind": "list", "values": v, "default": v[0], "description": ""} for n, v in params.items()],
         "constraints": [{"description": "shared memory", "expression": constraint}]}
doc = {"format": "ktune-recorded-space", "version": 1, "family": "synthetic_gemm_like",
       "problem": {"m": 2048, "n": 2048, "k": 2048}, "device": {"name": "none (synthetic)"},
       "source_format": "ktune",
       "provenance": {"synthetic": True, "generator": "tests/data/recorded/make_synthetic.py",
                      "note": "SYNTHETIC: analytic roofline-like formula with seeded 3% noise; not measured on any GPU"},
       "restrict_to_recorded": False, "space": space}
with open("synthetic_gemm_like.json", "w") as f:
    head = json.dumps(doc, indent=1)[:-2]
    f.write(head + ',\n "results": [\n')
    f.write(",\n".join("  " + json.dumps(r, separators=(",", ":")) for r in results))
    f.write("\n ]\n}\n")
print(len(results), "results")
