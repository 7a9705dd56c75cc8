#!/usr/bin/env python3
"""Writes the v9 re-seed sweep: every problem the shipped database tunes, each
started from its own best stored configurations of the wgmma path (of the template version
that the CLUSTER_N / BLOCK_N-step-8 edit made stale, given CLUSTER_N=1, the
knob they ran without; the mma.sync text did not change), plus extra starts per problem from a JSON file (run S's
findings), then bayes to the budget. One run per problem, since a run's
starts must be valid in every problem of the run.

Usage: make-reseed-sweep.py DB EXTRA.json OUT.json [TOP] [BUDGET]
EXTRA.json: {"m=512,n=4096,k=4096,dtype=bf16,layout=nt": ["KEY", ...], ...}
"""
import json
import sqlite3
import sys

db, extra_path, out_path = sys.argv[1:4]
top = int(sys.argv[4]) if len(sys.argv) > 4 else 4
budget = int(sys.argv[5]) if len(sys.argv) > 5 else 14


def short(key):
    """The sweep files' short problem form of a canonical database key."""
    fields = dict(kv.split("=") for kv in key.split(","))
    s = f"m={fields['m']},n={fields['n']},k={fields['k']},dtype={fields['dtype']},layout={fields['layout']}"
    if fields["layout"] == "nt" and fields["lda"] != fields["k"]:  # misaligned problems name their ld's
        s += f",lda={fields['lda']},ldb={fields['ldb']},ldc={fields['ldc']}"
    return s


def current(config):
    """A stored wgmma key in the current space: CLUSTER_N=1 where it predates the knob."""
    if "PATH=wgmma" in config and "CLUSTER_N=" not in config:
        config = config.replace(",GROUP_M=", ",CLUSTER_N=1,GROUP_M=")
    return config


con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
best = {}
for problem, config in con.execute(
    """select p.key, c.key from results r join problems p on p.id = r.problem_id
       join configs c on c.id = r.config_id
       where r.status = 'ok' and p.family = 'gemm' order by p.key, r.median_s"""):
    if "PATH=wgmma" not in config:
        continue  # the mma.sync and SIMT text did not change: their results stay current
    picks = best.setdefault(short(problem), [])
    config = current(config)
    if config not in picks and len(picks) < top:
        picks.append(config)

extra = json.load(open(extra_path))
runs = []
for problem in sorted(set(best) | set(extra)):
    starts = list(best.get(problem, []))
    starts += [s for s in extra.get(problem, []) if s not in starts]
    runs.append({"kernel": "gemm", "problems": [problem], "start": starts, "budget": max(budget, len(starts) + 4)})

json.dump({"comment": "v9 re-seed (bench/results/gemm-hopper-2026-12-02-v9.md): each problem starts from its best "
           "stored configurations of the stale template version and run S's extra starts, then bayes. Made by "
           "bench/results/gemm-hopper-2026-12-02-v9/scripts/make-reseed-sweep.py.",
           "defaults": {"strategy": "bayes", "batch": 8, "seed": 17}, "runs": runs},
          open(out_path, "w"), indent=2)
print(f"{len(runs)} problems, {sum(len(r['start']) for r in runs)} starts, "
      f"{sum(r['budget'] for r in runs)} evaluations at most")
