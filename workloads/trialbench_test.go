package workloads

import (
	"context"
	"fmt"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// BenchmarkSmallTrials is the per-trial cost of a sweep of small trials
// (issue 42): b.N trials at N = 5 under uniform(1ms,5ms), with and without
// a leader crash once one is elected, run as `electbench run` runs them:
// planned, executed one at a time by the Executor, each row queued for
// results.csv and flushed as the run flushes them (Executor.Flush), and
// the summary built from the rows at the end.
func BenchmarkSmallTrials(b *testing.B) {
	lat, err := trial.ParseLatency("uniform(1ms,5ms)")
	if err != nil {
		b.Fatal(err)
	}
	crash, err := ParseCrash("leader@leader-elected")
	if err != nil {
		b.Fatal(err)
	}
	// The run's defaults, as `electbench run` parses them: with no
	// initiator a ring elects no one, its crash never comes, and the
	// benchmark timed trials of nothing.
	ids, err := ParseIDs("random")
	if err != nil {
		b.Fatal(err)
	}
	initiators, err := ParseInitiators("lowest")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"chang-roberts", "bully", "raft", "etcd-raft"} {
		alg, variant, err := nodes.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, fault := range []string{"none", "crash"} {
			b.Run(fmt.Sprintf("%s/%s", name, fault), func(b *testing.B) {
				s := &Spec{Scenario: "bench", Algos: []Algo{{Alg: alg, Variant: variant}}, Nodes: []int{5},
					Trials: b.N, Seed: 1, Latency: lat, IDs: ids, Initiators: initiators}
				if fault == "crash" {
					s.Crashes = []CrashSpec{crash}
				}
				if err := s.Validate(); err != nil {
					b.Fatal(err)
				}
				runSweep(b, s)
			})
		}
	}
}

// runSweep runs s's plan as a run does and reports trials/s.
func runSweep(b *testing.B, s *Spec) {
	w, err := reports.NewWriter(b.TempDir(), []string{"csv"}, reports.WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	plan := s.Plan()
	rows := make([]reports.Row, 0, len(plan))
	b.ResetTimer()
	err = (&Executor{Parallel: 1, Flush: w.Flush}).Execute(context.Background(), plan, func(r reports.Row) error {
		if r.Error != "" {
			return fmt.Errorf("trial %d: %s", r.Trial, r.Error)
		}
		if r.Leader == "" || len(s.Crashes) > 0 && r.Faults == "" {
			return fmt.Errorf("trial %d elected %q, faults %q: the sweep times trials that do nothing", r.Trial, r.Leader, r.Faults)
		}
		rows = append(rows, r)
		return w.Queue(r)
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(reports.Summarize(rows)) != 1 {
		b.Fatal("want one summary group")
	}
	b.StopTimer()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(plan))/b.Elapsed().Seconds(), "trials/s")
}
