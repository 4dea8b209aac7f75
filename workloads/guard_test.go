package workloads

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
)

const gib = 1 << 30

func TestCheckPlanRefuses(t *testing.T) {
	lim := Limits{MaxMemory: 18 * gib, Parallel: 2}
	for _, c := range []struct {
		name   string
		spec   *Spec
		inflow int64 // --max-inflight
		want   string
	}{
		{"bully 10^5", spec(t, "bully", "100000", "random", "lowest", "1ms", 1), 0, "bully N=100000: estimated 2.6 TiB at its peak"},
		{"10^9 trials", spec(t, "chang-roberts,lcr", "4..256", "random", "lowest", "1ms", 1_000_000_000), 0, "the plan holds 1.4e+10 trials"},
		{"heartbeat detector", func() *Spec {
			s := spec(t, "lcr", "100000", "random", "lowest", "1ms", 1)
			s.Detector.Kind = "heartbeat"
			return s
		}(), 0, "lcr N=100000: estimated 1.8 TiB"},
	} {
		c.spec.Budget.MaxInFlight = c.inflow
		err := CheckPlan([]*Spec{c.spec}, lim)
		var pe *PlanError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a PlanError containing %q", c.name, err, c.want)
		}
	}
	for _, s := range []*Spec{
		spec(t, "chang-roberts", "10000000", "random", "successor-of-max", "1ms", 1),
		spec(t, "lcr,hs", "1000000", "random", "all", "uniform(1ms,5ms)", 1),
		spec(t, "bully,raft,zookeeper,chubby,multicast", "4..256", "random", "lowest", "1ms", 5),
	} {
		if err := CheckPlan([]*Spec{s}, lim); err != nil {
			t.Errorf("%s N=%v: refused: %v", s.Algos[0].Alg.Name, s.Nodes, err)
		}
	}
	// Two trials at once, each fitting alone, together too large.
	s := spec(t, "chang-roberts", "10000000", "random", "lowest", "1ms", 2)
	if err := CheckPlan([]*Spec{s}, Limits{MaxMemory: 1000 << 20, Parallel: 2}); err == nil || !strings.Contains(err.Error(), "2 trials at once") {
		t.Errorf("two large trials at once: %v", err)
	}
	if err := CheckPlan([]*Spec{s}, Limits{MaxMemory: 1000 << 20, Parallel: 1}); err != nil {
		t.Errorf("one at a time: %v", err)
	}
	// An explicit in-flight budget bounds the estimate: bully at 10^5 then
	// fits (its trials will be stopped by the budget, as asked).
	b := spec(t, "bully", "100000", "random", "lowest", "1ms", 1)
	b.Budget.MaxInFlight = 1 << 20
	if err := CheckPlan([]*Spec{b}, lim); err != nil {
		t.Errorf("bully with --max-inflight: %v", err)
	}
	// An events budget below the estimate refuses.
	e := spec(t, "chang-roberts", "100000", "random", "lowest", "1ms", 1)
	e.Budget.MaxEvents = 1000
	if err := CheckPlan([]*Spec{e}, lim); err == nil || !strings.Contains(err.Error(), "more than --max-events 1000") {
		t.Errorf("events budget: %v", err)
	}
}

// TestEstimateMatchesRun: the memory and event estimates of a ring trial
// are within a factor of two of what a run takes.
func TestEstimateMatchesRun(t *testing.T) {
	s := spec(t, "chang-roberts", "500000", "random", "successor-of-max", "1ms", 1)
	tr := s.Plan()[0]
	est := tr.Estimate()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	row := RunSim(tr, nil)
	runtime.ReadMemStats(&after)
	if !row.Correct {
		t.Fatalf("row %+v", row)
	}
	used := float64(after.TotalAlloc - before.TotalAlloc)
	if used > 2*est.Memory || used < est.Memory/2 {
		t.Errorf("estimated %.0f bytes, the run allocated %.0f", est.Memory, used)
	}
	if ev := float64(row.Events); ev > 2*est.Events || ev < est.Events/2 {
		t.Errorf("estimated %.0f events, the run processed %.0f", est.Events, ev)
	}
}

// A quorum algorithm's events are mostly its steady traffic, until the
// settling rule ends the trial (trial.Settling) or, where it does not
// apply, until the deadline: the estimate follows each algorithm's own
// period (raft's heartbeat, chubby's renewals, zookeeper's watches,
// etcd-raft's tick) and window, and holds every algorithm of the family
// within 2× of what a run processes, at several N, with a period that is
// not the default (zookeeper's watch-period 8T leaves no window: it runs
// to its deadline) and run to the deadline on request.
func TestEstimateQuorumEvents(t *testing.T) {
	for _, c := range []struct {
		algo   string
		params nodes.Params
		keep   bool
	}{
		{"raft", nil, false}, {"raft", nodes.Params{"heartbeat": "tmin/2"}, false},
		{"chubby", nil, false}, {"zookeeper", nil, false}, {"zookeeper", nodes.Params{"watch-period": "8T"}, false},
		{"etcd-raft", nil, false},
		{"raft", nil, true}, {"chubby", nil, true}, {"zookeeper", nil, true},
	} {
		for _, n := range []string{"8", "32"} {
			s := spec(t, c.algo, n, "random", "successor-of-max", "uniform(1ms,5ms)", 1)
			s.Algos[0].Params = c.params
			s.KeepRunning = c.keep
			tr := s.Plan()[0]
			est := tr.Estimate()
			row := RunSim(tr, nil)
			if row.Error != "" {
				t.Fatalf("%s %v N=%s: %s", c.algo, c.params, n, row.Error)
			}
			ev := float64(row.Events)
			if ev > 2*est.Events || ev < est.Events/2 {
				t.Errorf("%s %v keep-running %v N=%s: estimated %.0f events, the run processed %.0f", c.algo, c.params, c.keep, n, est.Events, ev)
			}
			t.Logf("%s %v keep-running %v N=%s: processed %.2f× the estimate", c.algo, c.params, c.keep, n, ev/est.Events)
		}
	}
}
