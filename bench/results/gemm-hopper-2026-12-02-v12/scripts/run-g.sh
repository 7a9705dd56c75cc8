#!/usr/bin/env bash
# Run G (gemm v12): `ktune tune` resuming from a database with warm-L2 timings says so. A copy of the
# database shipped before v12 (fc6d23f, carried as build-carry-lead/old-shipped.db; 14 of 128x4096x4096's 26
# results timed warm), 2 more evaluations of that problem: the outcome must end with the note.
source "$(dirname "$0")/common.sh"
cp build-carry-lead/old-shipped.db /tmp/b/old.db
timeout 120 $B/ktune tune --kernel gemm --problem m=128,n=4096,k=4096,dtype=bf16,layout=nt --budget 2 --db /tmp/b/old.db \
  > $OUT/tune-note-runG.txt 2>&1
echo "tune rc=$?"; tail -4 $OUT/tune-note-runG.txt
