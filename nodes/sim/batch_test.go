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
	const ms = time.Millisecond
	restart := []trial.Fault{{Effect: trial.EffCrash, Name: "crash",
		Targets: func(trial.View) []int { return []int{5} },
		Start:   trial.When{Trigger: trial.AtTime, At: 3 * ms}, For: 4 * ms}}
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs"} {
		a, _, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			lat    trial.Latency
			faults []trial.Fault
		}{
			{trial.Constant(ms), nil},
			{trial.Uniform{Lo: ms, Hi: 5 * ms}, nil},
			{trial.Constant(ms), restart},
		} {
			run := func(a *nodes.Algorithm) ([]byte, *trial.Record) {
				var buf bytes.Buffer
				tr := trial.NewTrace(&buf)
				rec, err := sim.Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(shuffled(64)), Initiators: []int{3, 40}, Latency: c.lat, Seed: 7, Events: tr, Faults: c.faults})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := tr.Flush(); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes(), rec
			}
			batchTrace, batch := run(a)
			if len(batch.Crashes) != len(c.faults) {
				t.Fatalf("%s, %s: %d crashes, want %d", name, c.lat, len(batch.Crashes), len(c.faults))
			}
			oneTrace, one := run(oneByOne(a))
			if len(batchTrace) == 0 || !bytes.Equal(batchTrace, oneTrace) {
				t.Fatalf("%s, %s, %d faults: the traces differ (%d and %d bytes)", name, c.lat, len(c.faults), len(batchTrace), len(oneTrace))
			}
			if batch.Messages != one.Messages || batch.Events != one.Events || batch.End != one.End || len(batch.Crashes) != len(one.Crashes) {
				t.Fatalf("%s, %s: records differ: %d/%d messages, %d/%d events", name, c.lat, batch.Messages, one.Messages, batch.Events, one.Events)
			}
			for p := range 64 {
				if batch.Decisions.Get(p) != one.Decisions.Get(p) {
					t.Fatalf("%s, %s: process %d decided %+v, one by one %+v", name, c.lat, p, batch.Decisions.Get(p), one.Decisions.Get(p))
				}
			}
		}
	}
}
