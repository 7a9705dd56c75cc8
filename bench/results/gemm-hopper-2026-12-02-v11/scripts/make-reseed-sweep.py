#!/usr/bin/env python3
"""Writes the v11 re-seed sweep. The STREAM_K edit of gemm_wgmma.cuh made every
stored wgmma result stale (the mma.sync text did not change). Each problem the
shipped database tunes on the wgmma path starts from its TOP best stored
configurations (given STREAM_K=false, the knob they ran without) and their
stream-K twins (those that are persistent, cooperative and unsplit), then
bayes for EXTRA more evaluations. One run per problem, since a run's starts
must be valid in every problem of the run.

(Twins are made only where the 132-SM grid ends with a partial round.)

Usage: make-reseed-sweep.py DB OUT.json [TOP] [EXTRA]
"""
import json
import sqlite3
import sys

db, out_path = sys.argv[1:3]
top = int(sys.argv[3]) if len(sys.argv) > 3 else 3
extra = int(sys.argv[4]) if len(sys.argv) > 4 else 2


def short(key):
    """The sweep files' short problem form of a canonical database key."""
    fields = dict(kv.split("=") for kv in key.split(","))
    s = f"m={fields['m']},n={fields['n']},k={fields['k']},dtype={fields['dtype']},layout={fields['layout']}"
    if fields["layout"] == "nt" and fields["lda"] != fields["k"]:  # misaligned problems name their ld's
        s += f",lda={fields['lda']},ldb={fields['ldb']},ldc={fields['ldc']}"
    return s


def knobs(config):
    return dict(kv.split("=") for kv in config.split(","))


def key(fields):
    return ",".join(f"{k}={fields[k]}" for k in sorted(fields))


def current(config):
    """A stored wgmma key in the current space: STREAM_K=false (and CLUSTER_N=1) where it predates the knob."""
    fields = knobs(config)
    fields.setdefault("CLUSTER_N", "1")
    fields.setdefault("STREAM_K", "false")
    return key(fields)


def stream_k_twin(problem, config, sms=132):
    """The STREAM_K=true twin of a configuration, where its last round is partial (else None)."""
    fields = knobs(config)
    if fields["PERSISTENT"] != "true" or fields["PINGPONG"] == "true" or fields["SPLIT_K"] != "1":
        return None
    p = knobs(problem)
    cm, cn = int(fields["CLUSTER_M"]), int(fields["CLUSTER_N"])
    tiles_m = -(-int(p["m"]) // int(fields["BLOCK_M"]))
    tiles_n = -(-int(p["n"]) // int(fields["BLOCK_N"]))
    items = -(-tiles_m // cm) * -(-tiles_n // cn)
    workers = sms // (cm * cn)  # at most: clusters may fit fewer
    if items <= workers or items % workers == 0:
        return None
    fields["STREAM_K"] = "true"
    return key(fields)


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

runs = []
for problem in sorted(best):
    starts = list(best[problem])
    starts += [t for t in (stream_k_twin(problem, c) for c in best[problem]) if t and t not in starts]
    runs.append({"kernel": "gemm", "problems": [problem], "start": starts, "budget": len(starts) + extra})

json.dump({"comment": "v11 re-seed (bench/results/gemm-hopper-2026-12-02-v11.md): each problem starts from its best "
           "stored configurations of the stale template version and their stream-K twins, then bayes. Made by "
           "bench/results/gemm-hopper-2026-12-02-v11/scripts/make-reseed-sweep.py.",
           "defaults": {"strategy": "bayes", "batch": 8, "seed": 23}, "runs": runs},
          open(out_path, "w"), indent=2)
print(f"{len(runs)} problems, {sum(len(r['start']) for r in runs)} starts, "
      f"{sum(r['budget'] for r in runs)} evaluations at most")
