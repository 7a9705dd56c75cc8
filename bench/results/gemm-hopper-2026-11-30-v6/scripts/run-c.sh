#!/usr/bin/env bash
# Run C: the database's three best configurations of every shape (after run B's sweep) re-timed against
# cuBLAS, a few more 4096^3 / 8192^3 tiles, and the fences of the cluster release in SASS.
source "$(dirname "$0")/common.sh"
bench_database_winners tuning_db/ktune.db 3 exact-top3
EXTRA=( "$(wg 256 128 2 true false 4 128 true)" "$(wg 128 256 2 true false 4 64 true 16)" "$(wg 128 256 2 true false 3 64 true)"
        "$(wg 128 192 2 true false 5 64 true)" "$(wg 128 256 2 false false 4 64 true)" )
bench extra-tiles sq4096 m=4096,n=4096,k=4096,dtype=bf16,layout=nt "${EXTRA[@]}"
bench extra-tiles sq8192 m=8192,n=8192,k=8192,dtype=bf16,layout=nt "${EXTRA[@]}"
for v in old new; do sass_sync_lines build-carry-lead/sass/pp-cluster2-$v.cubin > $OUT/sass-sync-$v.txt; done
cat $OUT/sass-sync-old.txt; echo ---; cat $OUT/sass-sync-new.txt
gpu_state
