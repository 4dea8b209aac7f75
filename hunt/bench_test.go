package hunt

import (
	"context"
	"slices"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// searches are the properties the guided and the uniform search are
// compared on: raft forgetting its vote across a restart (two leaders in
// a term: raft with amnesia keeps no stable state) and a partition storm
// disrupting raft's leaders six times.
var searches = []struct {
	name, scenario string
	kinds          []string
	heal           string
	property       string
}{
	{"raft-two-leaders", amnesiac, []string{"crash", "partition"}, HealAlways, "safety"},
	{"raft-disruptions", "name: r\nalgorithms: [raft]\nnodes: 3..8\n", []string{"crash", "partition"}, HealSometimes, "disruptions>=6"},
}

// amnesiac is raft whose restarts forget the term and vote.
const amnesiac = "name: r\nalgorithms: [{name: raft, params: {amnesia: true}}]\nnodes: 3..8\n"

// BenchmarkGuidedAgainstUniform reports the median, over 10 search seeds,
// of the trials to the first violation with guidance (coverage, corpus,
// mutation) and with uniform sampling of the same space (--uniform).
func BenchmarkGuidedAgainstUniform(b *testing.B) {
	for _, c := range searches {
		b.Run(c.name, func(b *testing.B) {
			p, err := ParseProperty(c.property)
			if err != nil {
				b.Fatal(err)
			}
			var guided, uniform float64
			for b.Loop() {
				guided, uniform = medianTrials(b, c.scenario, c.kinds, c.heal, p, false), medianTrials(b, c.scenario, c.kinds, c.heal, p, true)
			}
			b.ReportMetric(guided, "guided-trials")
			b.ReportMetric(uniform, "uniform-trials")
		})
	}
}

// medianTrials is the median over search seeds 1..10 of the candidate at
// which the first violation is found (the budget, 3000, when none is).
func medianTrials(b *testing.B, scenario string, kinds []string, heal string, p Property, uniform bool) float64 {
	const budget = 3000
	var at []int
	for seed := range uint64(10) {
		s, err := NewSpace(base(b, scenario), kinds, nil)
		if err != nil {
			b.Fatal(err)
		}
		s.Heal = heal
		f, _, err := Run(context.Background(), Options{Space: s, Property: p, Trials: budget, Seed: seed + 1, Uniform: uniform})
		if err != nil {
			b.Fatal(err)
		}
		n := budget
		if f != nil {
			n = f.Trial
		}
		at = append(at, n)
	}
	slices.Sort(at)
	return float64(at[4]+at[5]) / 2
}

// BenchmarkHuntAgainstRun compares a hunt's cost per trial with that of
// the same trials run as `electbench run` runs scenario files (each file
// parsed and checked, its trial run by the executor): the uniform search
// draws exactly the candidates the files hold. The guided search's cost
// per trial (other trials: its corpus's) is reported beside them.
func BenchmarkHuntAgainstRun(b *testing.B) {
	const trials = 300
	mk := func() Options {
		s, err := NewSpace(base(b, "name: r\nalgorithms: [raft, etcd-raft, chang-roberts]\nnodes: 3..8\n"), []string{"crash"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		s.Heal = HealNever
		return Options{Space: s, Property: Property{Name: "safety"}, Trials: trials, Seed: 3, Parallel: 1}
	}
	// The files the uniform search runs, drawn as it draws them.
	o := mk()
	h := newHunter(o)
	var files [][]byte
	for k := range trials {
		data, err := yaml.Marshal(h.scenario(h.gen.fresh(), k+1))
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	var perHunt, perRun, perGuided time.Duration
	for b.Loop() {
		start := time.Now()
		u := mk()
		u.Uniform = true
		if f, _, _ := Run(context.Background(), u); f != nil {
			b.Fatalf("the uniform search found candidate %d: pick a space with nothing to find", f.Trial)
		}
		perHunt = time.Since(start) / trials
		start = time.Now()
		x := workloads.Executor{Parallel: 1}
		for i, data := range files {
			_, spec, err := load(name(i+1), data)
			if err != nil {
				b.Fatal(err)
			}
			if err := x.Execute(context.Background(), spec.Plan(), func(reports.Row) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
		perRun = time.Since(start) / trials
		start = time.Now()
		Run(context.Background(), mk())
		perGuided = time.Since(start) / trials
	}
	b.ReportMetric(float64(perHunt.Microseconds()), "hunt-µs/trial")
	b.ReportMetric(float64(perRun.Microseconds()), "run-µs/trial")
	b.ReportMetric(float64(perHunt)/float64(perRun), "hunt/run")
	b.ReportMetric(float64(perGuided.Microseconds()), "guided-µs/trial")
}
