package sim_test

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/bully"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// Ranks held small (nodes.Ranks: 4 bytes a process, built whole a window
// of positions at a time on a ring under constant latency, all at once
// elsewhere) run exactly as the same ranks held whole: the same trace,
// byte for byte, and the same record. The ring has 83 processes, so the
// last window is partial, and a crash and restart in the middle.
func TestSmallRanksRunAsWhole(t *testing.T) {
	const n = 83
	whole := shuffled(n)
	ids := make([]uint64, n)
	for i, r := range whole {
		ids[i], _ = r.ID.Small()
	}
	small := nodes.RanksFrom(ids...)
	if _, ok := small.Small(); !ok {
		t.Fatal("the ranks are not held small")
	}
	for _, name := range []string{"chang-roberts", "ring-initiator", "lcr", "hs", "bully"} {
		a, _, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range runCases(37) {
			cfg := trial.Config{Algorithm: a, Ranks: small, Initiators: []int{3, 40, 82}, Latency: c.lat, Seed: 7, Faults: c.faults}
			held := cfg
			held.Ranks = nodes.RanksOf(whole)
			sameRuns(t, name+", small ranks", cfg, held)
		}
	}
}

// decisions records what a sink is told of decisions, by Event.
type decisions struct{ got []string }

func (d *decisions) Kinds() trial.Kinds { return trial.KindsOf(trial.EvDecide, trial.EvCrash) }
func (d *decisions) Event(e *trial.Event) {
	d.got = append(d.got, fmt.Sprintf("%v %s %d %v", e.At, e.Kind, e.P, e.Leader))
}

// direct is decisions taking them by a call of their own.
type direct struct{ decisions }

func (d *direct) EventDecide(at time.Duration, p int32, leader *nodes.Rank) {
	d.got = append(d.got, fmt.Sprintf("%v %s %d %v", at, trial.EvDecide, p, *leader))
}

// A sink that takes decisions by EventDecide (trial.DecisionSink) is told
// of every decision, in the same order and at the same times, as one that
// takes them by Event, and of nothing else differently.
func TestDecisionSinkTold(t *testing.T) {
	restart := []trial.Fault{{Effect: trial.EffCrash, Name: "crash",
		Targets: func(trial.View) []int { return []int{20} },
		Start:   trial.When{Trigger: trial.AtTime, At: 2 * time.Millisecond}, For: 5 * time.Millisecond}}
	for _, name := range []string{"chang-roberts", "bully"} {
		a, _, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		byEvent, byCall := &decisions{}, &direct{}
		for _, sink := range []trial.Sink{byEvent, byCall} {
			if _, err := sim.Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(shuffled(40)), Initiators: []int{3}, Latency: trial.Uniform{Lo: time.Millisecond, Hi: 3 * time.Millisecond}, Seed: 3, Events: sink, Faults: restart}); err != nil {
				t.Fatal(err)
			}
		}
		if len(byEvent.got) < 40 || !slices.Equal(byEvent.got, byCall.got) {
			t.Fatalf("%s: %d events told by Event, %d with EventDecide; first differing: %v", name, len(byEvent.got), len(byCall.got), firstDiff(byEvent.got, byCall.got))
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] + " / " + b[i]
		}
	}
	return "(one is a prefix of the other)"
}

// counting takes decisions by EventDecide and counts them.
type counting struct{ n int }

func (c *counting) Kinds() trial.Kinds                            { return trial.KindsOf(trial.EvDecide) }
func (c *counting) Event(*trial.Event)                            {}
func (c *counting) EventDecide(time.Duration, int32, *nodes.Rank) { c.n++ }

// countingEvents counts decisions told by Event.
type countingEvents struct{ n int }

func (c *countingEvents) Kinds() trial.Kinds   { return trial.KindsOf(trial.EvDecide) }
func (c *countingEvents) Event(e *trial.Event) { c.n++ }

// A decision allocates nothing, told to a DecisionSink or not (a leader
// handed through an interface would otherwise escape to the heap, once a
// decision): the allocations of a ring's run do not grow with its size.
func TestDecisionsDoNotAllocate(t *testing.T) {
	a, _, err := nodes.Lookup("chang-roberts")
	if err != nil {
		t.Fatal(err)
	}
	mallocs := func(n int, sink trial.Sink) uint64 {
		ids := make([]uint64, n)
		for i := range ids {
			ids[i] = uint64(i + 1)
		}
		cfg := trial.Config{Algorithm: a, Ranks: nodes.RanksFrom(ids...), Initiators: []int{0}, Latency: trial.Constant(time.Millisecond), Seed: 1, Events: sink}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := sim.Run(cfg); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	for _, sink := range []trial.Sink{&counting{}, &countingEvents{}} {
		small, large := mallocs(1000, sink), mallocs(9000, sink)
		if large > small+1000 {
			t.Errorf("%T: %d allocations at N = 1000, %d at N = 9000 (8000 more decisions)", sink, small, large)
		}
	}
}
