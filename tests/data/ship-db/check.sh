#!/usr/bin/env bash
# CTest gpu_ship_db: scripts/gpu-ship-db on a replayed tier, twice, into a copy
# of the shipped database: the first step hands back what it measured, the
# second resumes, measures nothing and hands back the same, and the first's
# file imports into the shipped database as new results.
# Usage: check.sh BUILD_DIR
source "$(dirname "$0")/../script-check-setup.sh"
export KTUNE_BUILD="$build" KTUNE_SHIP_DB="$tmp/sweep.db"
lines() { wc -l < "$1" | tr -d ' '; }
"$root/scripts/gpu-ship-db" "$tmp/a" "$here/tier.json" 120 > "$tmp/a.log" 2>&1 || { cat "$tmp/a.log"; exit 1; }
[ "$(lines "$tmp/a/new-results.jsonl")" = 6 ] || { echo "first step: $(lines "$tmp/a/new-results.jsonl") new results, want 6"; cat "$tmp/a.log"; exit 1; }
[ -f "$tmp/a/summary.txt" ] || { echo "no summary.txt"; exit 1; }
"$root/scripts/gpu-ship-db" "$tmp/b" "$here/tier.json" 120 > "$tmp/b.log" 2>&1 || { cat "$tmp/b.log"; exit 1; }
# The second step hands back what the copy gained since it was made: the first step's, nothing new.
cmp -s <(sort "$tmp/a/new-results.jsonl") <(sort "$tmp/b/new-results.jsonl") ||
  { echo "the resumed step measured again"; cat "$tmp/b.log"; exit 1; }
grep -q "(+6)" "$tmp/b/sweep.log" || grep -q "+6 reused" "$tmp/b/sweep.log" ||
  { echo "the resumed step did not reuse the first's results"; cat "$tmp/b/sweep.log"; exit 1; }
cp "$root/tuning_db/ktune.db" "$tmp/shipped.db"
"$build/bin/ktune" db import "$tmp/a/new-results.jsonl" --db "$tmp/shipped.db" 2>&1 | tee "$tmp/import.log"
grep -q "read 6 measurements, 6 new" "$tmp/import.log"
