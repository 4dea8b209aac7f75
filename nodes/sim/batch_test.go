package sim_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// oneByOne is a, its machines made one at a time: its New never sees the
// simulator's Batch, so the simulator keeps a data word per machine.
func oneByOne(a *nodes.Algorithm) *nodes.Algorithm {
	b := *a
	b.New = func(cfg nodes.Config) (func() nodes.Machine, error) {
		cfg.Batch = nil
		return a.New(cfg)
	}
	return &b
}

// Machines built in one array (nodes.Batch) run exactly as the same
// machines made one at a time: the same trace, byte for byte, and the same
// record, for every algorithm that builds them so, under constant and
// random latency, and when a crashed process restarts as a fresh machine
// (which turns the simulator's table of the array into data words).
func TestBatchRunsAsOneByOne(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs"} {
		a, _, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		ranks := nodes.RanksOf(shuffled(64))
		for _, c := range runCases(5) {
			cfg := trial.Config{Ranks: ranks, Initiators: []int{3, 40}, Latency: c.lat, Seed: 7, Faults: c.faults}
			batch, one := cfg, cfg
			batch.Algorithm, one.Algorithm = a, oneByOne(a)
			sameRuns(t, name+", one by one", batch, one)
		}
	}
}

// runCase is a latency model and faults to run a comparison under.
type runCase struct {
	lat    trial.Latency
	faults []trial.Fault
}

// runCases are constant and random latency, and constant latency with
// process p crashed at 3 ms and restarted 4 ms later.
func runCases(p int) []runCase {
	const ms = time.Millisecond
	restart := []trial.Fault{{Effect: trial.EffCrash, Name: "crash",
		Targets: func(trial.View) []int { return []int{p} },
		Start:   trial.When{Trigger: trial.AtTime, At: 3 * ms}, For: 4 * ms}}
	return []runCase{{trial.Constant(ms), nil}, {trial.Uniform{Lo: ms, Hi: 5 * ms}, nil}, {trial.Constant(ms), restart}}
}

// sameRuns runs a and b, each with a trace, and fails unless they run
// exactly alike: the same trace, byte for byte (and not empty), the same
// counts, crashes (as many as a's faults) and decisions.
func sameRuns(t *testing.T, what string, a, b trial.Config) {
	t.Helper()
	run := func(cfg trial.Config) ([]byte, *trial.Record) {
		var buf bytes.Buffer
		tr := trial.NewTrace(&buf)
		cfg.Events = tr
		rec, err := sim.Run(cfg)
		if err != nil {
			t.Fatalf("%s: %v", cfg.Algorithm.Name, err)
		}
		if err := tr.Flush(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), rec
	}
	aTrace, x := run(a)
	bTrace, y := run(b)
	if len(x.Crashes) != len(a.Faults) {
		t.Fatalf("%s, %s: %d crashes, want %d", what, a.Latency, len(x.Crashes), len(a.Faults))
	}
	if len(aTrace) == 0 || !bytes.Equal(aTrace, bTrace) {
		t.Fatalf("%s, %s, %d faults: the traces differ (%d and %d bytes)", what, a.Latency, len(a.Faults), len(aTrace), len(bTrace))
	}
	if x.Messages != y.Messages || x.Events != y.Events || x.End != y.End || len(x.Crashes) != len(y.Crashes) || x.Messages == 0 {
		t.Fatalf("%s, %s: records differ: %d/%d messages, %d/%d events", what, a.Latency, x.Messages, y.Messages, x.Events, y.Events)
	}
	for p := range a.Ranks.Len() {
		if x.Decisions.Get(p) != y.Decisions.Get(p) {
			t.Fatalf("%s, %s: process %d decided %+v and %+v", what, a.Latency, p, x.Decisions.Get(p), y.Decisions.Get(p))
		}
	}
}
