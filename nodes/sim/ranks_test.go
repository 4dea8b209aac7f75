package sim_test

import (
	"bytes"
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
	const ms = time.Millisecond
	const n = 83
	restart := []trial.Fault{{Effect: trial.EffCrash, Name: "crash",
		Targets: func(trial.View) []int { return []int{37} },
		Start:   trial.When{Trigger: trial.AtTime, At: 3 * ms}, For: 4 * ms}}
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
		for _, c := range []struct {
			lat    trial.Latency
			faults []trial.Fault
		}{
			{trial.Constant(ms), nil},
			{trial.Uniform{Lo: ms, Hi: 5 * ms}, nil},
			{trial.Constant(ms), restart},
		} {
			run := func(ranks nodes.Ranks) ([]byte, *trial.Record) {
				var buf bytes.Buffer
				tr := trial.NewTrace(&buf)
				rec, err := sim.Run(trial.Config{Algorithm: a, Ranks: ranks, Initiators: []int{3, 40, 82}, Latency: c.lat, Seed: 7, Events: tr, Faults: c.faults})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := tr.Flush(); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes(), rec
			}
			smallTrace, s := run(small)
			wholeTrace, w := run(nodes.RanksOf(whole))
			if len(smallTrace) == 0 || !bytes.Equal(smallTrace, wholeTrace) {
				t.Fatalf("%s, %s, %d faults: the traces differ (%d and %d bytes)", name, c.lat, len(c.faults), len(smallTrace), len(wholeTrace))
			}
			if s.Messages != w.Messages || s.Events != w.Events || s.End != w.End || s.Messages == 0 {
				t.Fatalf("%s, %s: records differ: %d/%d messages, %d/%d events", name, c.lat, s.Messages, w.Messages, s.Events, w.Events)
			}
			for p := range n {
				if s.Decisions.Get(p) != w.Decisions.Get(p) {
					t.Fatalf("%s, %s: process %d decided %+v, with whole ranks %+v", name, c.lat, p, s.Decisions.Get(p), w.Decisions.Get(p))
				}
			}
		}
	}
}
