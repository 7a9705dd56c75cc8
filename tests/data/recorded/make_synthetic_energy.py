#!/usr/bin/env python3
# Generates synthetic_energy.json: a SYNTHETIC recorded space whose results
# carry energy (metrics.energy_j, power_w), for the energy objective's tests.
# More warps finish sooner but draw more power, so the fastest configuration
# is not the one with the least energy per launch. NOT measured on any GPU.
import json

warps = [1, 2, 4, 8, 16]
vecs = [1, 2, 4]
results = []
for w in warps:
    for v in vecs:
        c = {"WARPS": w, "VEC": v}
        t = 1e-4 * (16 / w) ** 0.6 * (1.3 - 0.1 * v)   # seconds per launch
        p = 120 + 40 * w + 15 * v                       # watts while running
        r = {"config": c, "status": "ok", "time": {"median_s": float("%.6g" % t), "repetitions": 10},
             "metrics": {"energy_j": float("%.6g" % (p * t)), "power_w": p}}
        if (w, v) == (16, 4):
            r["metrics"] = {}  # the fastest: measured where there was no energy counter
        if (w, v) == (2, 1):
            r = {"config": c, "status": "launch_error", "message": "synthetic failure"}
        results.append(r)

space = {"format": "ktune-space/1", "constants": {},
         "parameters": [{"name": "WARPS", "kind": "list", "values": warps, "default": 1, "description": ""},
                        {"name": "VEC", "kind": "list", "values": vecs, "default": 1, "description": ""}],
         "constraints": []}
doc = {"format": "ktune-recorded-space", "version": 1, "family": "synthetic_energy",
       "problem": {"n": 1024}, "device": {"name": "none (synthetic)"},
       "source_format": "ktune",
       "provenance": {"synthetic": True, "generator": "tests/data/recorded/make_synthetic_energy.py",
                      "note": "SYNTHETIC: analytic time and power; not measured on any GPU"},
       "restrict_to_recorded": False, "space": space}
with open("synthetic_energy.json", "w") as f:
    head = json.dumps(doc, indent=1)[:-2]
    f.write(head + ',\n "results": [\n')
    f.write(",\n".join("  " + json.dumps(r, separators=(",", ":")) for r in results))
    f.write("\n ]\n}\n")
best = lambda key: min((r for r in results if r["status"] == "ok" and r["metrics"]), key=key)["config"]
print(len(results), "results; time", best(lambda r: r["time"]["median_s"]),
      "energy", best(lambda r: r["metrics"]["energy_j"]),
      "edp", best(lambda r: r["metrics"]["energy_j"] * r["time"]["median_s"]))
