#!/usr/bin/env bash
# A sharded electbench sweep as a Slurm job array (docs/sharding.md):
#
#   jid=$(sbatch --parsable docs/sharding/slurm.sh)
#   sbatch --dependency=afterok:$jid --wrap 'electbench merge shards/* --out merged'
#
# Each array task runs one part: Slurm sets SLURM_ARRAY_TASK_ID (1..8) and
# SLURM_ARRAY_TASK_COUNT. A failed task is re-run alone:
# sbatch --array=K docs/sharding/slurm.sh. ELECTBENCH_PLAN overrides the
# sweep's flags (the test runs a small one).
#SBATCH --job-name=electbench
#SBATCH --array=1-8
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=02:00:00
set -euo pipefail
plan=${ELECTBENCH_PLAN:-"--algo all --nodes 4..1024 --trials 20 --latency uniform(1ms,5ms) --seed 1"}
k=${SLURM_ARRAY_TASK_ID:?run under sbatch, or set SLURM_ARRAY_TASK_ID}
m=${SLURM_ARRAY_TASK_COUNT:-8}
mkdir -p shards
# shellcheck disable=SC2086 # the plan is a list of flags
exec electbench run $plan --shard "$k/$m" --out "shards/$k"
