#!/usr/bin/env bash
# One device call: rowwise v7 run C (issue 8's table), then gemm v10 run A (round quantization).
d="$(dirname "$0")"
bash "$d/../../rowwise-2026-12-02-v7/scripts/run-c.sh"
bash "$d/run-a.sh"
