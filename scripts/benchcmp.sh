#!/usr/bin/env bash
# Compare simulator benchmarks between builds on a noisy host: runs each test
# binary RUNS times, alternating, and prints every build's METRIC sorted
# (read the median). Build the binaries first, e.g.
#   GOMAXPROCS=1 go test -c -o /tmp/new.test ./nodes/sim
#   (cd "$(mktemp -d)" && git -C "$OLDPWD" worktree add -f . main && GOMAXPROCS=1 go test -c -o /tmp/old.test ./nodes/sim)
# METRIC picks the figure compared (default msgs/cpu-s); the per-trial cost
# of small trials (issue 42) is workloads' BenchmarkSmallTrials, in
# trials/s, one family and fault at a time, e.g.
#   GOMAXPROCS=1 go test -c -o /tmp/new.test ./workloads
#   METRIC=trials/s scripts/benchcmp.sh 5 'SmallTrials/raft/crash$' /tmp/old.test /tmp/new.test
# (benchtime 1x is one trial: give such a benchmark BENCHTIME=10000x).
# usage: scripts/benchcmp.sh RUNS BENCH-REGEX BINARY...
set -eu
runs=$1 bench=$2
metric=${METRIC:-msgs/cpu-s} benchtime=${BENCHTIME:-1x}
shift 2
out=$(mktemp)
for _ in $(seq "$runs"); do
	for b in "$@"; do
		v=$(GOMAXPROCS=1 "$b" -test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime" |
			awk -v m="$metric" '/^Benchmark/ {for (i = 1; i <= NF; i++) if ($i == m) print $(i-1)}' | head -1)
		echo "$b $v" >>"$out"
	done
done
for b in "$@"; do
	echo "$b $(awk -v b="$b" '$1 == b {print $2}' "$out" | sort -n | tr '\n' ' ')"
done
rm -f "$out"
