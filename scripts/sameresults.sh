#!/usr/bin/env bash
# Golden check for changes to the simulator that must not change what it
# computes (speed work): runs a fixed set of simulated runs — every latency
# model, crashes at every trigger, the heartbeat and inaccurate detectors,
# traces, every built-in simulated scenario — and prints an md5 of every
# results.csv and trace. Run it with the binary before and after the change
# and diff the outputs: they must be identical.
# usage: scripts/sameresults.sh ELECTBENCH-BINARY OUTDIR > sums.txt
set -u
B=$1 O=$2
rm -rf "$O" && mkdir -p "$O"
i=0
run() {
	i=$((i + 1))
	"$B" run --out "$O/r$i" --format csv --parallel 2 "$@" >/dev/null 2>&1
	echo "r$i rc=$? $*" | sed "s|$O|OUT|g"
}
run --algo all --nodes 4..64 --trials 3 --latency 'uniform(1ms,5ms)'
run --algo all --nodes 4..64 --trials 3 --latency 'exponential(2ms)' --crash 'leader@leader-elected'
run --algo all --nodes 3,7,20 --trials 4 --latency 'normal(5ms,1ms)' --crash highest --initiators all
run --algo all --nodes 4..32 --trials 3 --latency 1ms --crash 'random(1)@3T'
run --algo all --nodes 8,16 --trials 3 --latency 'uniform(1ms,5ms)' --detector 'heartbeat(2T,6T)' --crash 'leader@leader-elected'
run --algo all --nodes 8,16 --trials 3 --latency 'uniform(1ms,5ms)' --detector 'inaccurate(300,0,2T,20T)'
run --algo lcr,hs,chang-roberts --nodes 500 --trials 2 --latency 'uniform(1ms,5ms)' --initiators all --trace "$O/trace.jsonl"
# Ranks held whole (nodes.Ranks): minted identities and epoch ranks.
run --algo all --nodes 4..32 --trials 2 --ids 'pow(8)' --latency 'uniform(1ms,5ms)' --crash 'leader@leader-elected'
run --algo all --nodes 4..32 --trials 2 --rank epoch --latency 1ms --initiators all
# Names are lower case; a capitalised line is a heading (the incidents').
for s in $("$B" scenario list | awk '/^[a-z0-9]/ {print $1}'); do
	"$B" scenario show "$s" | grep -q '^runtime: live' && continue
	run "$s" --trials 2
done
(cd "$O" && find . -name '*.csv' -o -name '*.jsonl' | sort | xargs md5sum)
