#!/usr/bin/env bash
# CTest sibling_vs_own_plan: bench/transfer/sibling-vs-own's plan on the
# shipped database, for an H200 and without a GPU (its timing binary is
# /bin/true, so every timed row reads FAILED): each shape of
# sibling-shapes-1.txt and -2.txt is answered from the H100's exact measurement and by
# the H200's own prediction, so a GPU run times two answers for each; a shape
# the H200 measured itself is skipped; a call without --shapes exits 2.
# Usage: check.sh BUILD_DIR
source "$(dirname "$0")/../script-check-setup.sh"
export KTUNE="$build/bin/ktune" GEMM_BENCH=/bin/true
script="$root/bench/transfer/sibling-vs-own"
fail() { echo "sibling_vs_own_plan: $*"; cat "$tmp/out/sibling-vs-own.md" 2>/dev/null; exit 1; }

{ cat "$root"/bench/transfer/sibling-shapes-[12].txt | grep -v '^#'; echo "m=4096,n=4096,k=4096,dtype=bf16,layout=nt"; } > "$tmp/shapes.txt"
"$script" --shapes "$tmp/shapes.txt" --device "NVIDIA H200" --out "$tmp/out" > /dev/null
table="$tmp/out/sibling-vs-own.md"
listed=$(cat "$root"/bench/transfer/sibling-shapes-[12].txt | grep -vc '^#')
planned=$(grep -c '| exact (measured on NVIDIA H100 80GB HBM3): another GPU of this arch | predicted from' "$table" || true)
[ "$planned" = "$listed" ] || fail "$planned of $listed listed shapes compare a sibling's exact answer with the H200's prediction"
grep -q '^| m=4096,n=4096,k=4096,dtype=bf16,layout=nt | exact (measured on NVIDIA H200) | skipped: not a sibling' "$table" ||
  fail "the H200's own exact shape was not skipped"
set +e
"$script" --device "NVIDIA H200" --out "$tmp/none" > "$tmp/usage.log" 2>&1
status=$?
set -e
[ "$status" = 2 ] || fail "without --shapes: exit $status, want 2"
grep -q -- "--shapes FILE is required" "$tmp/usage.log" || fail "without --shapes: $(cat "$tmp/usage.log")"
echo "sibling_vs_own_plan: $planned shapes planned, the own exact one skipped"
