#!/usr/bin/env bash
# (The probe's successor is bench/gpc_probe.cu, bench_gpc_probe: the same plain and 2-block placements with a
# cluster-index column, and which SMs share a GPC; gemm v17 run F.)
# Run I (gemm v11): where the blocks of a persistent wgmma-sized grid land (variants/smid_probe.cu, built with
# nvcc into build-carry-lead/bin): block -> %smid, without a cluster and in clusters of two. The input a
# partition-aware tile order needs (§6-7).
source "$(dirname "$0")/common.sh"
$B/smid_probe > $OUT/smid-runI.txt 2>&1; echo "probe rc=$?"
awk '$1 == 1' $OUT/smid-runI.txt | head -20 | tr '\n' ' '; echo
awk '$1 == 2' $OUT/smid-runI.txt | head -20 | tr '\n' ' '; echo
awk '{print $3}' $OUT/smid-runI.txt | sort -n | uniq | tr '\n' ' '; echo
