#!/usr/bin/env python3
"""ktune from Python in three steps: tune a GEMM shape into a database, look
its configuration up, and call the tuned kernel on PyTorch tensors.

Without a GPU (or with --replay), step 1 replays a recorded H200 space and
step 3 is skipped; the lookup runs anywhere. From the repository root:

  PYTHONPATH=python KTUNE_LIBRARY=build/lib/libktune_c.so python3 examples/python/tune_lookup_call.py
"""

import argparse
import os
import tempfile

import ktune

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# %% 1. Tune one problem. On a GPU this measures; --replay answers from a recording.
p = argparse.ArgumentParser()
p.add_argument("--db", default=os.path.join(tempfile.mkdtemp(), "example.db"))
p.add_argument("--budget", type=int, default=20)
p.add_argument("--replay", action="store_true", help="replay a recorded H200 space, no GPU needed")
args = p.parse_args()

problem = {"m": 128, "n": 4096, "k": 4096, "dtype": "bf16", "layout": "nt"}
try:
    import torch

    gpu = torch.cuda.is_available()
except ImportError:
    torch, gpu = None, False
replay = None
if args.replay or not gpu:
    replay = os.path.join(ROOT, "tuning_db", "recorded", "gemm_bf16_nt_128x4096x4096_h200.json")
db = ktune.tune("gemm", problem, db=args.db, budget=args.budget, replay=replay, quiet=True)
print("tuned into", db.path)

# %% 2. Look it up: the same answer `ktune lookup` prints, as plain Python values. The
# tuned database sits over the shipped one; a replay stores the recording's template
# version, which only the shipped database's current measurements may outrank.
answer = ktune.lookup("gemm", problem, device="h200", db=db)
print("lookup:", answer.config, "(%s)" % answer.source)
if answer.measured:
    print("measured median %.4g ms, from %s" % (answer.measured["time"]["median_s"] * 1e3,
                                              answer.record["database"]))
for r in db.query(top=3):  # records: pandas.DataFrame(db.query(top=3)) makes a table
    print("  rank %d  %.4g ms  %s" % (r["rank"], r["median_s"] * 1e3, r["config_key"]))

# %% 3. Call it from PyTorch: x @ w.t() runs layout nt on w's storage, no copy.
if gpu and replay is None:
    ktune.configure(db=db.path)
    x = torch.randn(128, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)  # N x K, as nn.Linear stores it
    y = ktune.matmul(x, w.t())
    print("runs", ktune.explain_matmul(x, w.t()))
    err = ((y.float() - (x @ w.t()).float()).norm() / (x @ w.t()).float().norm()).item()
    print("relative error against torch.matmul: %.2e" % err)
else:
    print("no GPU tuned here: step 3 (the call) needs one")
