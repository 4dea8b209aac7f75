package workloads

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
)

// A small deterministic run of the built-in raft-figure16 (the first 60
// trials of each range, 4 of 150–150): its downtimes must stay in the
// paper's order. Bottom panel: the median grows with the timeout range,
// for raft and etcd-raft. Top panel: 5 ms of randomness beats 1 ms, and
// 25 ms beats 5 ms (Raft paper §9.3, Figure 16). 150–150 elects nobody.
// docs/figure16.md has the full run and the paper's numbers.
func TestRaftFigure16Order(t *testing.T) {
	src, ok := chaos.Builtin("raft-figure16")
	if !ok {
		t.Fatal("no built-in raft-figure16")
	}
	specs, err := ParseScenarios("raft-figure16.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	var trials []Trial
	for _, s := range specs {
		keep := 60
		if s.Scenario == "raft-figure16-150-150" {
			keep = 4
		}
		for _, tr := range s.Plan() {
			if tr.Trial < keep {
				trials = append(trials, tr)
			}
		}
	}
	medians := map[string]float64{} // "algorithm scenario" → median downtime, ms (unfinished trials count as +Inf)
	by := map[string][]float64{}
	if err := (&Executor{Parallel: 2}).Execute(context.Background(), trials, func(r reports.Row) error {
		if r.Error != "" || r.SafetyViolations != 0 {
			t.Errorf("%s %s trial %d: error %q, %d safety violations", r.Algorithm, r.Scenario, r.Trial, r.Error, r.SafetyViolations)
		}
		v := 1e18
		if r.FailoverS.IsSet() {
			v = r.FailoverS.Get() * 1000
		}
		k := r.Algorithm + " " + strings.TrimPrefix(r.Scenario, "raft-figure16-")
		by[k] = append(by[k], v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for k, vs := range by {
		slices.Sort(vs)
		medians[k] = vs[len(vs)/2]
	}
	increasing := func(keys ...string) {
		t.Helper()
		for i := 1; i < len(keys); i++ {
			a, b := medians[keys[i-1]], medians[keys[i]]
			if a == 0 || b == 0 || a >= b {
				t.Errorf("median downtime %s = %.1f ms, %s = %.1f ms: want the first below", keys[i-1], a, keys[i], b)
			}
		}
	}
	for _, alg := range []string{"raft", "etcd-raft"} {
		increasing(alg+" 12-24", alg+" 25-50", alg+" 50-100", alg+" 100-200", alg+" 150-300")
	}
	increasing("raft 150-175", "raft 150-155", "raft 150-151")
	if m := medians["raft 150-150"]; m < 1e18 {
		t.Errorf("150–150 elected a leader (median downtime %.1f ms): equal timeouts must split the vote forever", m)
	}
}
