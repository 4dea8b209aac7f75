#!/usr/bin/env bash
# The full-size sharding check of docs/sharding.md: the plan run whole, then
# as 3 shards, 7 shards and 7 shards in reverse order, each shard a separate
# process; every merge's results.csv and summary.csv must equal the whole
# run's byte for byte. It takes about an hour of one core.
#
#   scripts/shardcheck.sh BINARY OUTDIR
set -euo pipefail
bin=$(realpath "$1")
out=$2
plan=(--algo all --nodes 4..1024 --trials 20 --latency 'uniform(1ms,5ms)' --seed 1 --parallel 1)
mkdir -p "$out"
cd "$out"
rm -rf whole s3 s7 r7 m3 m7 mr7
echo "whole: $(date -u +%T)"
"$bin" run "${plan[@]}" --out whole >whole.log 2>&1
shards() { # DIR M ORDER...
	local dir=$1 m=$2
	shift 2
	for k in "$@"; do
		echo "$dir shard $k/$m: $(date -u +%T)"
		"$bin" run "${plan[@]}" --shard "$k/$m" --out "$dir/$k" >"$dir-$k.log" 2>&1
	done
}
shards s3 3 1 2 3
shards s7 7 1 2 3 4 5 6 7
shards r7 7 7 6 5 4 3 2 1
"$bin" merge s3/3 s3/1 s3/2 --out m3
"$bin" merge s7/* --out m7
"$bin" merge r7/* --out mr7
status=0
for m in m3 m7 mr7; do
	for f in results.csv summary.csv; do
		if cmp -s "whole/$f" "$m/$f"; then
			echo "$m/$f identical ($(md5sum <"$m/$f" | cut -c1-12), $(wc -l <"$m/$f") lines)"
		else
			echo "$m/$f DIFFERS from whole/$f"
			status=1
		fi
	done
done
echo "done: $(date -u +%T)"
exit $status
