#!/usr/bin/env bash
# slurm-sweep.sh: a ktune sweep split over a Slurm job array (one shard per
# array task, one GPU each), then a merge job that unites the shard databases.
#
#   sbatch --array=0-7 scripts/slurm-sweep.sh examples/sweep.json out/sweep.db
#
# Task I of N runs `ktune sweep FILE --shard I/N` into out/sweep.shard-I-of-N.db
# (rerunning a task resumes its shard). The first task submits the merge as a
# job that waits for the whole array (afterany: the shards that finished are
# merged even if one failed; rerun that task, then the merge line printed in
# its log). $KTUNE names the binary (default: ktune on PATH).
#SBATCH --job-name=ktune-sweep
#SBATCH --array=0-3
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --time=04:00:00
#SBATCH --output=ktune-sweep-%A_%a.out
set -euo pipefail

sweep=${1:?usage: sbatch --array=0-N scripts/slurm-sweep.sh SWEEP.json [DATABASE]}
db=${2:-${KTUNE_DB:-ktune.db}}
ktune=${KTUNE:-ktune}
: "${SLURM_ARRAY_TASK_ID:?run this under sbatch --array=0-N}"
count=${SLURM_ARRAY_TASK_COUNT:?run this under sbatch --array=0-N}
index=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}))

# The shard databases, named as `ktune sweep --shard I/N` names them.
shard_db() {
  local dir base stem ext
  dir=$(dirname -- "$db")
  base=$(basename -- "$db")
  if [[ $base == *.* ]]; then stem=${base%.*}; ext=.${base##*.}; else stem=$base; ext=; fi
  echo "$dir/$stem.shard-$1-of-$count$ext"
}

if [[ $index -eq 0 ]]; then
  shards=()
  for ((s = 0; s < count; s++)); do shards+=("$(shard_db "$s")"); done
  merge="$ktune db merge ${shards[*]@Q} -o ${db@Q}"
  echo "merge step: $merge"
  sbatch --dependency="afterany:${SLURM_ARRAY_JOB_ID}" --job-name=ktune-merge --time=00:30:00 \
    --output="ktune-merge-%j.out" --wrap="$merge"
fi

exec "$ktune" sweep "$sweep" --db "$db" --shard "$index/$count"
