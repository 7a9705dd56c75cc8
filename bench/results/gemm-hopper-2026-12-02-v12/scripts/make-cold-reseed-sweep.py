#!/usr/bin/env python3
"""Writes v12's cold-L2 re-seed sweep: every gemm problem of the shipped database, started from its TOP
fastest stored configurations (timed warm or cold, `ktune db query --top TOP --keys`) and, for each wgmma
start, its twins with the other PINGPONG and PERSISTENT settings (run C: at M = 128 and 512 the persistent
non-pingpong twin of the database's pingpong winners was the fastest under a cold L2), then bayes for
EXTRA more evaluations. One run per problem, into a fresh database, so that every start is timed again.

Usage: make-cold-reseed-sweep.py QUERY_KEYS.txt OUT.json [EXTRA]
"""
import json
import sys

keys_path, out_path = sys.argv[1:3]
extra = int(sys.argv[3]) if len(sys.argv) > 3 else 8


def twins(config):
    """The wgmma key with PINGPONG and PERSISTENT flipped one at a time (pingpong needs persistence)."""
    if "PATH=wgmma" not in config:
        return []
    out = []
    if "PINGPONG=true" in config:
        out.append(config.replace("PINGPONG=true", "PINGPONG=false"))
    if "PERSISTENT=false" in config:
        out.append(config.replace("PERSISTENT=false", "PERSISTENT=true"))
    return out


runs = []
for line in open(keys_path):
    problem, *configs = line.strip().split("|")
    starts = []
    for c in configs:
        for s in [c] + twins(c):
            if s not in starts:
                starts.append(s)
    runs.append({"kernel": "gemm", "problems": [problem], "start": starts, "budget": len(starts) + extra})

json.dump({"comment": "v12 cold-L2 re-seed (bench/results/gemm-hopper-2026-12-02-v12.md). Made by "
           "bench/results/gemm-hopper-2026-12-02-v12/scripts/make-cold-reseed-sweep.py.",
           "defaults": {"strategy": "bayes", "batch": 8, "seed": 23}, "runs": runs},
          open(out_path, "w"), indent=2)
print(f"{len(runs)} problems, {sum(len(r['start']) for r in runs)} starts, "
      f"{sum(r['budget'] for r in runs)} evaluations at most")
