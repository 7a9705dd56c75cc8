#!/usr/bin/env python3
# Writes the excerpts of this folder: each Kernel Tuner cache of
# ../shared/spaces/ (measured by others; see its SOURCES.md) with its header
# fields unchanged and 24 of its cache entries, evenly spaced in the file's
# order, plus its first 4 failed entries where it has any. Entries are copied
# whole; nothing is made up. Usage: make_excerpts.py SPACES_DIR
import glob, gzip, json, os, sys

KEEP, FAILED = 24, 4
here = os.path.dirname(os.path.abspath(__file__))
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json.gz"))):
    name = os.path.basename(path)[: -len(".json.gz")]
    if os.path.exists(os.path.join(here, "..", name + ".json")):
        continue  # shipped already (a larger cut) in the folder above
    with gzip.open(path, "rt") as f:
        cache_file = json.load(f)
    keys = list(cache_file["cache"])
    chosen = [keys[i * len(keys) // KEEP] for i in range(KEEP)]
    failed = [k for k in keys if not isinstance(cache_file["cache"][k].get("time"), (int, float))]
    chosen += [k for k in failed[:FAILED] if k not in chosen]
    chosen_set = set(chosen)
    cache_file["cache"] = {k: v for k, v in cache_file["cache"].items() if k in chosen_set}
    with open(os.path.join(here, name + ".json"), "w") as f:
        json.dump(cache_file, f, separators=(",", ":"))
        f.write("\n")
