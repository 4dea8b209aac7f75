package workloads

import (
	"context"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// A live trial's run is priced as the simulator runs it with its machines
// reading their parameters in the live unit: messages take the link's
// latency, timers and windows the live unit; a token ring runs to its
// deadline; a trial too busy to simulate for an estimate is priced at its
// deadline; an external program, which the simulator does not run, at
// nothing beyond its cluster.
func TestLiveRun(t *testing.T) {
	T := 10 * time.Millisecond
	unit := trial.LiveUnit(T, 0)
	first := func(s *Spec) Trial { return s.Plan()[0] }

	// chang-roberts from the successor of the highest: 3N − 1 messages one
	// after another, each T.
	cr := first(spec(t, "chang-roberts", "16", "random", "successor-of-max", "10ms", 1))
	if got, want := cr.LiveRun(t.Context()), time.Duration(3*16-1)*T; got != want {
		t.Errorf("chang-roberts N=16: live run %v, want (3N−1)T = %v", got, want)
	}

	tr := first(spec(t, "token-ring", "8", "random", "lowest", "10ms", 1))
	if got, d := tr.LiveRun(t.Context()), trial.DefaultDeadline(8, T); got > d || got < d-T {
		t.Errorf("token-ring: live run %v, want its deadline %v (within T)", got, d)
	}

	// raft: the election, then the settling window, in the live unit.
	rs := spec(t, "raft", "5", "random", "lowest", "10ms", 3)
	raft := first(rs)
	w := raft.settleWindow(unit)
	if got := raft.LiveRun(t.Context()); w == 0 || got < w || got >= trial.DefaultDeadline(5, T) {
		t.Errorf("raft: live run %v, want at least its live window %v and less than its deadline", got, w)
	}
	simulated := raft.config(rs.IDs) // the same trial on the simulator's own unit settles sooner
	rec, err := (simRuntime{}).Run(t.Context(), simulated)
	if err != nil || rec.End >= raft.LiveRun(t.Context()) {
		t.Errorf("raft in T settles at %v (%v), want before its live run %v", rec.End, err, raft.LiveRun(t.Context()))
	}
	// Every trial of an algorithm and size is priced as its first.
	costs := Costs(t.Context(), rs.Plan(), true)
	for i, tr := range rs.Plan() {
		if c := tr.Cost(true); costs[i] != c || c != raft.Cost(true) {
			t.Errorf("raft trial %d: Costs %v, Cost %v, want the first trial's %v", i, costs[i], c, raft.Cost(true))
		}
	}

	busy := spec(t, "raft", "16", "random", "lowest", "1ms", 1)
	busy.KeepRunning, busy.Deadline = true, time.Hour
	if got := first(busy).LiveRun(t.Context()); got != time.Hour {
		t.Errorf("raft kept running for an hour: live run %v, want the deadline", got)
	}

	done, cancel := context.WithCancel(t.Context())
	cancel()
	if got := first(busy).LiveRun(done); got != 0 {
		t.Errorf("interrupted: live run %v, want 0 (the simulation stopped)", got)
	}

	ext := raft
	alg := *raft.Algo.Alg
	alg.External = &nodes.ExternalDef{}
	ext.Algo.Alg = &alg
	if got := ext.LiveRun(t.Context()); got != 0 {
		t.Errorf("external program: live run %v, want 0", got)
	}
}
