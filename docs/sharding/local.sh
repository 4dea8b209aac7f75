#!/usr/bin/env bash
# A sharded electbench sweep with plain processes (docs/sharding.md): M
# shards, P at a time, on this machine or, with ssh in front of the command,
# on others; then the merge. ELECTBENCH_PLAN overrides the sweep's flags.
#
#   docs/sharding/local.sh 8 4     # 8 shards, 4 at a time
set -euo pipefail
m=${1:-4}
p=${2:-2}
plan=${ELECTBENCH_PLAN:-"--algo all --nodes 4..1024 --trials 20 --latency uniform(1ms,5ms) --seed 1"}
mkdir -p shards
# shellcheck disable=SC2086 # the plan is a list of flags
seq 1 "$m" | xargs -P "$p" -I{} electbench run $plan --shard "{}/$m" --out "shards/{}" >/dev/null
electbench merge shards/* --out merged
