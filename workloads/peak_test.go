package workloads

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// envPeak, when set, makes the test binary run the one trial it describes
// (peakCase as JSON) and print what it measured (peakResult) instead of
// running tests: a fresh process, whose heap holds nothing else.
const envPeak = "ELECTBENCH_TEST_PEAK"

type peakCase struct {
	Algo, Nodes, Latency, Initiators string
}

type peakResult struct {
	Estimate float64 // Trial.Estimate().Memory
	Heap     float64 // how much the heap grew during the trial
	Correct  bool
	Error    string
}

// peakMain runs the trial of $ELECTBENCH_TEST_PEAK with the collector
// started at every 10% of growth, and prints how much the heap (the
// memory the runtime took from the system for it: MemStats.HeapSys, which
// never shrinks) grew, so at most 10% above the most the trial held at
// once, besides fragmentation.
func peakMain() {
	v := os.Getenv(envPeak)
	if v == "" {
		return
	}
	var c peakCase
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tr, err := c.trial()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	debug.SetGCPercent(10)
	row := RunSim(tr, nil)
	runtime.ReadMemStats(&after)
	out, _ := json.Marshal(peakResult{Estimate: tr.Estimate().Memory, Heap: float64(after.HeapSys - before.HeapSys), Correct: row.Correct, Error: row.Error})
	fmt.Println(string(out))
	os.Exit(0)
}

func (c peakCase) trial() (Trial, error) {
	s := &Spec{Scenario: "peak", Trials: 1, Seed: 42}
	a, v, err := nodes.Lookup(c.Algo)
	if err != nil {
		return Trial{}, err
	}
	s.Algos = []Algo{{Alg: a, Variant: v}}
	if s.Nodes, err = ParseNodes(c.Nodes); err != nil {
		return Trial{}, err
	}
	if s.IDs, err = ParseIDs("random"); err != nil {
		return Trial{}, err
	}
	if s.Initiators, err = ParseInitiators(c.Initiators); err != nil {
		return Trial{}, err
	}
	if s.Latency, err = trial.ParseLatency(c.Latency); err != nil {
		return Trial{}, err
	}
	if err := s.Validate(); err != nil {
		return Trial{}, err
	}
	return s.Plan()[0], nil
}

// The plan guard's memory estimate is a bound: what a trial holds at its
// busiest instant, under constant and random latency, on rings and
// complete graphs, with one initiator and with all, is at most its
// estimate (the collector's garbage beyond that is kept under --max-memory
// by the runtime's memory limit, not by the estimate). Each trial runs in a
// fresh process (peakMain) whose heap grew at most 10% past what it held,
// plus a few MiB of the runtime's own; and the estimate is not wildly
// above it (at most 2.5 times), so the guard does not refuse what fits.
func TestEstimateBoundsMemory(t *testing.T) {
	const slack = 4 << 20 // the runtime's arenas and metadata
	for _, c := range []peakCase{
		{"chang-roberts", "500000", "1ms", "successor-of-max"},
		{"lcr", "100000", "1ms", "all"},
		{"lcr", "100000", "exponential(2ms)", "all"},
		{"hs", "100000", "1ms", "all"}, // two messages in flight a process
		{"hs", "100000", "uniform(1ms,5ms)", "all"},
		{"hs", "100000", "normal(5ms,1ms)", "all"},
		{"bully", "400", "uniform(1ms,5ms)", "lowest"}, // N² pending
		{"multicast", "400", "uniform(1ms,5ms)", "lowest"},
	} {
		name := strings.Join([]string{c.Algo, c.Nodes, c.Latency, c.Initiators}, "/")
		t.Run(name, func(t *testing.T) {
			js, _ := json.Marshal(c)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), envPeak+"="+string(js))
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var r peakResult
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if !r.Correct {
				t.Fatalf("the trial was not correct: %s", r.Error)
			}
			t.Logf("estimated %.1f MiB; the heap grew %.1f MiB (%.2f)", r.Estimate/(1<<20), r.Heap/(1<<20), r.Heap/r.Estimate)
			if r.Heap > r.Estimate+slack {
				t.Errorf("the heap grew %.1f MiB, past the estimate of %.1f MiB", r.Heap/(1<<20), r.Estimate/(1<<20))
			}
			if r.Estimate > 2.5*r.Heap+slack {
				t.Errorf("estimated %.1f MiB, more than 2.5 times the %.1f MiB the heap grew", r.Estimate/(1<<20), r.Heap/(1<<20))
			}
		})
	}
}
