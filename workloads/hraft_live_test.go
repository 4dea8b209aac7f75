//go:build unix

package workloads

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/electbench/electbench/nodes/hraft"
	"github.com/electbench/electbench/reports"
)

// hraftLive is hashicorp-raft, live, 5 nodes, 20 trials, with the
// library's defaults scaled by 1/2 (1 s heartbeat and election timeouts,
// 500 ms lease, 50 ms commit timeout become 500, 500, 250 and 25 ms). At
// 1/10 (a 50 ms lease) and at 1/4 (125 ms) a leader on a host loaded to 7
// runnable threads per 2 cores missed its lease in 2 to 5 trials of 20
// and stepped down with no fault (the library's "failed to contact"
// warning); at 1/2, in none of 20.
const hraftLive = `
name: hraft-live
runtime: live
algorithms:
  - name: hashicorp-raft
    params: {heartbeat-timeout: 500ms, election-timeout: 500ms, leader-lease-timeout: 250ms, commit-timeout: 25ms}
nodes: 5
trials: 20
network:
  latency: 2ms
`

// runHraftLive runs the scenario hraftLive with the rest given
// (YAML: the deadline and the faults) and returns its rows, every one of
// which must be safe and live.
func runHraftLive(t *testing.T, rest string) []reports.Row {
	t.Helper()
	rows := runLiveScenario(t, "hraft-live.yaml", hraftLive+rest)
	if len(rows) != 20 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if r.Error != "" || r.SafetyViolations != 0 || !r.Live {
			t.Errorf("trial %d: error %q, violation %q, live %v", r.Trial, r.Error, r.Violation, r.Live)
		}
	}
	return rows
}

// Issue 45's must-hold, live: after the leader's crash every trial elects
// again, safely, within the bounds of the library's follower and
// candidate loops (docs/LIBRARIES.md, "Failover"): no sooner than
// HT − HT/5 after the crash (a follower's last contact is at most one
// heartbeat interval, HT/5, before it, and it notices only once HT has
// passed since), and no later than 3HT (noticing) + 2ET (the round a
// follower still holding the old leader refused) + 2ET (one split round)
// + the network's rounds (pre-vote, vote, the new leader's first
// AppendEntries: 50 ms here for 2 ms links and a loaded host).

func TestHashicorpRaftLiveFailover(t *testing.T) {
	const ht, et = 500 * time.Millisecond, 500 * time.Millisecond
	lo, hi := ht-ht/5, 3*ht+4*et+50*time.Millisecond
	rows := runHraftLive(t, `
deadline: 6s
faults:
  - kind: crash
    target: leader
    at: leader-elected
`)
	var failovers []float64
	for _, r := range rows {
		f := time.Duration(r.FailoverS.Get() * float64(time.Second))
		if !r.FailoverS.IsSet() || f < lo || f > hi || !strings.Contains(r.Faults, ":crash(") {
			t.Errorf("trial %d: failover %v (set %v), want within [%v, %v]; faults %q", r.Trial, f, r.FailoverS.IsSet(), lo, hi, r.Faults)
		}
		failovers = append(failovers, r.FailoverS.Get())
	}
	slices.Sort(failovers)
	t.Logf("failover over 20 trials: min %.3fs, median %.3fs, max %.3fs (bounds [%v, %v])", failovers[0], failovers[10], failovers[19], lo, hi)
}

// Without the crash no trial loses its leader: the first term that has
// one is the last term (a split vote before it is no loss), and no leader
// is deposed.
func TestHashicorpRaftLiveSteady(t *testing.T) {
	for _, r := range runHraftLive(t, "deadline: 3s\n") {
		terms := strings.Split(r.TermLeaders, ";")
		first := slices.IndexFunc(terms, func(s string) bool { return !strings.HasSuffix(s, "=-") })
		if first != len(terms)-1 || r.Disruptions.Get() != 0 || !r.Correct {
			t.Errorf("trial %d: term leaders %q, disruptions %v, correct %v", r.Trial, r.TermLeaders, r.Disruptions, r.Correct)
		}
	}
}

// The built-in hraft-* scenarios run hashicorp-raft live, both variants:
// each keeps its expectations (safety; liveness where asked) in a trial
// of each, at the smallest size. Their raft and etcd-raft rows are
// simulated by TestEveryBuiltinRuns.
func TestHashicorpRaftScenariosLive(t *testing.T) {
	r := liveRuntime(t)
	for _, file := range []string{"hraft-leader-crash", "hraft-paused-leader", "hraft-halves", "hraft-minority", "hraft-flapping"} {
		for _, algo := range []string{"hashicorp-raft", "hashicorp-raft/no-prevote"} {
			specs := builtinSpecs(t, file) // the sizes, as the file gives them
			spec := liveScenario(t, file, file, algo, fmt.Sprint(specs[0].Nodes[0]), "", "live")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			row := RunLiveTrial(ctx, r, spec.Plan()[0], nil)
			cancel()
			if row.Error != "" || row.SafetyViolations != 0 || row.Expect != "pass" {
				t.Errorf("%s %s: error %q, violation %q, expect %q", file, algo, row.Error, row.Violation, row.Expect)
			}
			t.Logf("%s %s: terms %d, term leaders %q, failover %v, disruptions %v", file, algo, row.Terms.Get(), row.TermLeaders, row.FailoverS, row.Disruptions)
		}
	}
}
