#!/usr/bin/env bash
# The hunts of the nightly job (docs/nightly.yml, docs/HUNT.md "Nightly"):
# a fixed set of searches for a counterexample, each with a stated seed and
# budget (deterministic: the same build finds the same thing every night),
# over the algorithms that must hold under their model's faults and the
# incident library's algorithms. Each writes OUT/hunt-NAME (hunt.json, and
# on a find the counterexample, shrunk.yaml, story.html, trace.jsonl) and
# stores its outcome in HISTORY; compare and report read them from OUT.
# A find fails the script loudly: it names the algorithm, the property, the
# shrunk file and its story in one line, as a GitHub error annotation too.
# usage: scripts/nightlyhunts.sh OUT HISTORY
# HUNT_BUDGET=N replaces every budget (a test's tiny one).
set -u
out=$1 history=$2
electbench=${ELECTBENCH:-electbench}
failures=()

hunt() {
	local name=$1 budget=$2
	shift 2
	local dir="$out/hunt-$name" log
	log=$(mktemp)
	echo "nightly hunt $name: electbench hunt $* (seed 1, budget ${HUNT_BUDGET:-$budget})"
	"$electbench" hunt "$@" --seed 1 --budget "${HUNT_BUDGET:-$budget}" --shrink --out "$dir" --history "$history" >"$log" 2>&1
	local rc=$?
	grep -v '^hunt: ' "$log"
	if [ "$rc" -ne 0 ]; then
		local what
		what=$(grep -E '^(counterexample after|shrunk in|story:|electbench:)' "$log" | tr '\n' ' ')
		failures+=("hunt $name (exit $rc): $what")
	fi
	rm -f "$log"
}

# Correct algorithms under their model's faults: crash-stop for the ring,
# crashes that restart and partitions that heal for the quorum ones.
hunt chang-roberts 2000 --algo chang-roberts --kinds crash --heal never
hunt raft 2000 --algo raft --kinds crash,partition --heal always
hunt etcd-raft 1000 --algo etcd-raft --kinds crash,partition --heal always
# The incident library's algorithms (docs/incidents.md) under the faults of
# its incidents (pauses, loss, a limping process), healed: safe, and one
# leader again once the faults end.
hunt incidents 1000 --algo raft,chubby,etcd-raft/plain,etcd-raft/pre-vote,etcd-raft/check-quorum,etcd-raft \
	--kinds crash,partition,pause,loss,slow --heal always

if [ "${#failures[@]}" -gt 0 ]; then
	echo "NIGHTLY HUNTS FAILED: ${#failures[@]} hunt(s) found a counterexample or could not run" >&2
	for f in "${failures[@]}"; do
		echo "  $f" >&2
		echo "::error title=nightly hunt::$f"
	done
	exit 1
fi
echo "nightly hunts: no counterexample"
