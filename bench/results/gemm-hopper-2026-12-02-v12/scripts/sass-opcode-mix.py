#!/usr/bin/env python3
"""Executed warp instructions and stall samples per opcode, from an ncu SourceCounters SASS export
(`ncu --section SourceCounters --page source --print-source sass --csv`, gzipped), runs I and J.

Usage: sass-opcode-mix.py FILE.csv.gz
"""
import csv,gzip,sys,io,collections
lines=gzip.open(sys.argv[1],'rt').read().split('\n')
start=[i for i,l in enumerate(lines) if l.startswith('"Address"')][0]
rows=list(csv.reader(io.StringIO('\n'.join(lines[start:]))))
hdr=rows[0]; ix={h:i for i,h in enumerate(hdr)}
by=collections.Counter(); samp=collections.Counter(); tot=0; ts=0
for r in rows[1:]:
    if len(r)<len(hdr): continue
    ex=int(r[ix['Instructions Executed']].replace(',','') or 0); s=int(r[ix['Warp Stall Sampling (All Samples)']].replace(',','') or 0)
    op=r[ix['Source']].split()
    op=[t for t in op if not t.startswith('@')][0].split('.')[0] if op else '?'
    by[op]+=ex; samp[op]+=s; tot+=ex; ts+=s
print("total", tot, "samples", ts)
for op,c in by.most_common(15): print(f"{op:12} {c:>9} {samp[op]:>6}")
