#!/usr/bin/env python3
"""Writes the v7 re-seed sweep: every problem the shipped database tunes, each
started from its own best stored configurations (of the template versions the
kernel edits of 2026-12-01 made stale) plus the seeded sweep's starts, then
bayes to the budget. One run per problem, since a run's starts must be valid
in every problem of the run.

Usage: make-reseed-sweep.py DB SEEDED.json SMALL_M.json OUT.json [TOP] [BUDGET]
"""
import json
import sqlite3
import sys

db, seeded_path, small_m_path, out_path = sys.argv[1:5]
top = int(sys.argv[5]) if len(sys.argv) > 5 else 4
budget = int(sys.argv[6]) if len(sys.argv) > 6 else 14

# The sweep files' problems use the short form; the database keys are canonical.
def short(key):
    fields = dict(kv.split("=") for kv in key.split(","))
    s = f"m={fields['m']},n={fields['n']},k={fields['k']},dtype={fields['dtype']},layout={fields['layout']}"
    # Misaligned problems carry explicit leading dimensions.
    if fields["layout"] == "nt" and fields["lda"] != fields["k"]:
        s += f",lda={fields['lda']},ldb={fields['ldb']},ldc={fields['ldc']}"
    return s

con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
best = {}
for problem, config in con.execute(
    """select p.key, c.key from results r join problems p on p.id = r.problem_id
       join configs c on c.id = r.config_id
       where r.status = 'ok' and p.family = 'gemm' order by p.key, r.median_s"""):
    picks = best.setdefault(short(problem), [])
    if config not in picks and len(picks) < top:
        picks.append(config)

group_starts = {}
for path in (seeded_path, small_m_path):
    for run in json.load(open(path))["runs"]:
        for problem in run["problems"]:
            group_starts.setdefault(problem, [])
            group_starts[problem] += [s for s in run.get("start", []) if s not in group_starts[problem]]

runs = []
for problem in sorted(set(best) | set(group_starts)):
    starts = list(best.get(problem, []))
    starts += [s for s in group_starts.get(problem, []) if s not in starts]
    runs.append({"kernel": "gemm", "problems": [problem], "start": starts,
                 "budget": max(budget, len(starts) + 4)})

json.dump({"comment": "v7 re-seed (bench/results/gemm-hopper-2026-12-01-v7.md): each problem starts from its "
           "best stored configurations of the stale template versions and the seeded sweeps' starts, then bayes. "
           "Made by bench/results/gemm-hopper-2026-12-01-v7/scripts/make-reseed-sweep.py.",
           "defaults": {"strategy": "bayes", "batch": 8, "seed": 13}, "runs": runs},
          open(out_path, "w"), indent=2)
print(f"{len(runs)} problems, {sum(len(r['start']) for r in runs)} starts, "
      f"{sum(r['budget'] for r in runs)} evaluations at most")
