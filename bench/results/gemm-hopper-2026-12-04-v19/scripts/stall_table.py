#!/usr/bin/env python3
"""stall_table.py SASS_CSV_GZ [TOP]: the warp-stall table of an ncu SASS source page (runs A and D).

Reads the gzipped CSV that `ncu --import R --page source --csv --print-source sass` writes, prints the share
of every stall reason over all samples, the instruction mix of the main loop (the instructions executed as
often as the loop's HMMAs), and the TOP instructions by samples with their three largest reasons.
"""
import collections
import csv
import gzip
import io
import sys


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    lines = gzip.open(path, "rt").read().split("\n")[1:]  # the first line names the kernel
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    reasons = [c for c in rows[0] if c.startswith("stall_") and "Not Issued" not in c]
    samples = lambda r: int(r["Warp Stall Sampling (All Samples)"] or 0)
    total = sum(samples(r) for r in rows)
    per_reason = collections.Counter()
    for r in rows:
        for c in reasons:
            per_reason[c] += int(r[c] or 0)
    print(f"samples {total}")
    for c, v in per_reason.most_common():
        if v:
            print(f"  {c[6:]:16s} {v:7d} {100 * v / total:5.1f}%")
    hmma = [int(r["Instructions Executed"]) for r in rows if "HMMA" in r["Source"]]
    loop_count = collections.Counter(hmma).most_common(1)[0][0] if hmma else None
    loop = [r for r in rows if r["Instructions Executed"] and int(r["Instructions Executed"]) >= 0.98 * (loop_count or 0)]
    opcode = lambda src: src.split()[1] if src.strip().startswith("@") else src.split()[0]
    mix = collections.Counter(opcode(r["Source"]) for r in loop)
    print(f"main loop: {len(loop)} instructions, {sum(samples(r) for r in loop)} samples; {dict(mix.most_common(8))}")
    for r in sorted(rows, key=samples, reverse=True)[:top]:
        why = sorted(((c[6:], int(r[c] or 0)) for c in reasons), key=lambda x: -x[1])[:3]
        print(f"  {r['Address'][-5:]} {r['Source'].strip()[:56]:56s} {samples(r):5d} {r['Instructions Executed']:>7s} {why}")


if __name__ == "__main__":
    main()
