#!/usr/bin/env python3
"""Writes a widening sweep (gemm v13 run J): the given layout-nt shapes, each started from its two
fastest stored configurations (`ktune db query --top 2 --keys` of the shipped database) and searched further
by bayes with another seed than the re-seed's: EXTRA_SMALL more evaluations at M <= 512 (short kernels, cheap
to time), EXTRA_BIG above. Into a fresh database, merged into the shipped one afterwards.

Usage: make-widen-sweep.py QUERY_KEYS.txt OUT.json RUN EXTRA_SMALL EXTRA_BIG MxNxK... [--seed N] [--results vNN]
  run J: ... J 40 20 512x4096x4096 512x4096x14336 512x4096x11008 512x11008x4096 8192x4096x4096 8192x14336x4096
  (the bayes seed defaults to run J's 41, the results version named in the comment to v13)
"""
import json
import sys

args = sys.argv[1:]
options = {"--seed": "41", "--results": "v13"}
for flag in options:
    if flag in args:
        i = args.index(flag)
        options[flag] = args[i + 1]
        del args[i:i + 2]
keys_path, out_path, run = args[0:3]
extra_small, extra_big = int(args[3]), int(args[4])
targets = {tuple(int(x) for x in s.split("x")) for s in args[5:]}


runs = []
for line in open(keys_path):
    problem, *configs = line.strip().split("|")
    fields = dict(f.split("=") for f in problem.split(","))
    m, n, k = int(fields["m"]), int(fields["n"]), int(fields["k"])
    if (m, n, k) not in targets or fields.get("layout") != "nt" or fields["lda"] != fields["k"]:
        continue
    extra = extra_small if m <= 512 else extra_big
    runs.append({"kernel": "gemm", "problems": [problem], "start": configs, "budget": len(configs) + extra})

results = {"v13": "gemm-hopper-2026-12-02-v13", "v14": "gemm-hopper-2026-12-03-v14"}[options["--results"]]
json.dump({"comment": f"{options['--results']} run {run}: LLM shapes searched further (bench/results/{results}.md). "
           "Made by bench/results/gemm-hopper-2026-12-02-v13/scripts/make-widen-sweep.py " + " ".join(sys.argv[3:]),
           "defaults": {"strategy": "bayes", "batch": 8, "seed": int(options["--seed"])}, "runs": runs},
          open(out_path, "w"), indent=2)
print(f"{len(runs)} problems, {sum(r['budget'] for r in runs)} evaluations at most")
