#!/usr/bin/env bash
# Run I (gemm v11): where the blocks of a persistent wgmma-sized grid land (variants/smid_probe.cu, built with
# nvcc into build-carry-lead/bin): block -> %smid, without a cluster and in clusters of two. The input a
# partition-aware tile order needs (§6-7).
source "$(dirname "$0")/common.sh"
$B/smid_probe > $OUT/smid-runI.txt 2>&1; echo "probe rc=$?"
awk '$1 == 1' $OUT/smid-runI.txt | head -20 | tr '\n' ' '; echo
awk '$1 == 2' $OUT/smid-runI.txt | head -20 | tr '\n' ' '; echo
awk '{print $3}' $OUT/smid-runI.txt | sort -n | uniq | tr '\n' ' '; echo
