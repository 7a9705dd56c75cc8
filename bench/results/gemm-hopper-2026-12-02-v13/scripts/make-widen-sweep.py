#!/usr/bin/env python3
"""Writes a widening sweep (gemm v13 run J): the given layout-nt shapes, each started from its two
fastest stored configurations (`ktune db query --top 2 --keys` of the shipped database) and searched further
by bayes with another seed than the re-seed's: EXTRA_SMALL more evaluations at M <= 512 (short kernels, cheap
to time), EXTRA_BIG above. Into a fresh database, merged into the shipped one afterwards.

Usage: make-widen-sweep.py QUERY_KEYS.txt OUT.json RUN EXTRA_SMALL EXTRA_BIG MxNxK... [--seed N] [--results NAME]
  run J: ... J 40 20 512x4096x4096 512x4096x14336 512x4096x11008 512x11008x4096 8192x4096x4096 8192x14336x4096
  (the bayes seed defaults to run J's 41; NAME, the results file the comment names, to v13's)
"""
import argparse
import json
import sys

parser = argparse.ArgumentParser(description="Writes a widening sweep of layout-nt gemm shapes.")
parser.add_argument("keys_path", metavar="QUERY_KEYS.txt")
parser.add_argument("out_path", metavar="OUT.json")
parser.add_argument("run")
parser.add_argument("extra_small", type=int)
parser.add_argument("extra_big", type=int)
parser.add_argument("shapes", nargs="+", metavar="MxNxK")
parser.add_argument("--seed", type=int, default=41, help="the bayes seed (default: run J's 41)")
parser.add_argument("--results", default="gemm-hopper-2026-12-02-v13",
                    help="the results file (without .md) the comment names; its last part is the version")
args = parser.parse_args()
targets = {tuple(int(x) for x in s.split("x")) for s in args.shapes}


runs = []
for line in open(args.keys_path):
    problem, *configs = line.strip().split("|")
    fields = dict(f.split("=") for f in problem.split(","))
    m, n, k = int(fields["m"]), int(fields["n"]), int(fields["k"])
    if (m, n, k) not in targets or fields.get("layout") != "nt" or fields["lda"] != fields["k"]:
        continue
    extra = args.extra_small if m <= 512 else args.extra_big
    runs.append({"kernel": "gemm", "problems": [problem], "start": configs, "budget": len(configs) + extra})

version = args.results.rsplit("-", 1)[-1]
json.dump({"comment": f"{version} run {args.run}: LLM shapes searched further (bench/results/{args.results}.md). "
           "Made by bench/results/gemm-hopper-2026-12-02-v13/scripts/make-widen-sweep.py " + " ".join(sys.argv[3:]),
           "defaults": {"strategy": "bayes", "batch": 8, "seed": args.seed}, "runs": runs},
          open(args.out_path, "w"), indent=2)
print(f"{len(runs)} problems, {sum(r['budget'] for r in runs)} evaluations at most")
