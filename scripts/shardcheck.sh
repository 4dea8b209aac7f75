#!/usr/bin/env bash
# The full-size sharding check of docs/sharding.md: the plan run whole, then
# as 3 shards in order and as 7 shards in reverse order (7, 6, ..., 1), each
# shard a separate process, the two sets side by side; each merge's
# results.csv and summary.csv must equal the whole run's byte for byte.
# It takes about three times the whole run's CPU time. A finished whole run
# already in OUTDIR/whole (its log says so) is kept.
#
# The deadline is 5000T, past every algorithm's election at N = 1024 (hs,
# the slowest ring, takes 4N−2 = 4094T); quorum algorithms run to their
# deadline, and with the default (100N+1000)T = 103,400T at N = 1024 the
# check takes hours of CPU (measured: one of the seven shards 33 min with
# about half a core).
#
#   scripts/shardcheck.sh BINARY OUTDIR
set -euo pipefail
bin=$(realpath "$1")
out=$2
plan=(--algo all --nodes 4..1024 --trials 20 --latency 'uniform(1ms,5ms)' --deadline 5000T --seed 1 --parallel 1)
mkdir -p "$out"
cd "$out"
rm -rf s3 r7 m3 mr7 s3-*.log r7-*.log
if ! grep -q "results in whole" whole.log 2>/dev/null; then
	rm -rf whole
	echo "whole: $(date -u +%T)"
	"$bin" run "${plan[@]}" --out whole >whole.log 2>&1
fi
shards() { # DIR M ORDER...
	local dir=$1 m=$2
	shift 2
	for k in "$@"; do
		echo "$dir shard $k/$m: $(date -u +%T)"
		"$bin" run "${plan[@]}" --shard "$k/$m" --out "$dir/$k" >"$dir-$k.log" 2>&1
	done
}
shards s3 3 1 2 3 &
shards r7 7 7 6 5 4 3 2 1 &
wait
"$bin" merge s3/3 s3/1 s3/2 --out m3
"$bin" merge r7/* --out mr7
status=0
for m in m3 mr7; do
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
