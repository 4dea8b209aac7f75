package shrink

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// ErrPasses is a scenario file none of whose trials fails an expectation.
var ErrPasses = errors.New("nothing to shrink: the run passes its expectations")

// Picked is the failing trial a shrink starts from, as a one-trial
// scenario of its own.
type Picked struct {
	Scenario  *chaos.Scenario
	Outcome   *Outcome
	Violation Violation
	// Note says which trial of the file was picked when the file holds
	// more than one ("" when it is the file's only trial).
	Note string
}

// Pick runs every scenario of a file (file names it in errors and
// resolves a program's relative paths) on the simulator and returns its
// first failing trial, in plan order, as a one-trial scenario that fails
// the same way: its algorithm, its size, trials: 1, and the seed that
// gives trial 0 that trial's seed.
func Pick(ctx context.Context, file string, data []byte) (*Picked, error) {
	scs, err := chaos.Parse(file, data)
	if err != nil {
		return nil, err
	}
	for _, sc := range scs {
		sc.Runtime = "" // the shrinker runs on the simulator
		spec, err := workloads.FromScenario(sc)
		if err != nil {
			return nil, err
		}
		var rows []reports.Row
		x := &workloads.Executor{}
		if err := x.Execute(ctx, spec.Plan(), func(r reports.Row) error { rows = append(rows, r); return nil }); err != nil {
			return nil, fmt.Errorf("running scenario %s: %w", sc.Name, err)
		}
		row, ok := firstFailing(spec, rows)
		if !ok {
			continue
		}
		p, err := pickTrial(ctx, sc, spec, row)
		if err != nil {
			return nil, err
		}
		if len(rows) > 1 || len(scs) > 1 {
			p.Note = fmt.Sprintf("scenario %s, %s N=%d trial %d (seed %d): the first failing of its %d trials", sc.Name, algoLabel(row), row.Nodes, row.Trial, row.Seed, len(rows))
		}
		return p, nil
	}
	return nil, ErrPasses
}

// firstFailing is the first row, in plan order, that fails an expectation
// of its own (the expect column), or, for an expectation over trials,
// the first row of the first configuration that fails one.
func firstFailing(spec *workloads.Spec, rows []reports.Row) (reports.Row, bool) {
	fails := workloads.CheckRun([]*workloads.Spec{spec}, rows)
	for _, r := range rows {
		for _, f := range fails {
			if f.Trial >= 0 && f.Trial == r.Trial && f.Seed == r.Seed && f.Nodes == r.Nodes && f.Algorithm == algoLabel(r) {
				return r, true
			}
		}
	}
	for _, r := range rows {
		for _, f := range fails {
			if f.Trial < 0 && f.Nodes == r.Nodes && f.Algorithm == algoLabel(r) {
				return r, true
			}
		}
	}
	return reports.Row{}, false
}

// algoLabel names a row's algorithm as workloads.Failure does.
func algoLabel(r reports.Row) string {
	if r.Variant == "" || r.Variant == "default" {
		return r.Algorithm
	}
	return r.Algorithm + "/" + r.Variant
}

// pickTrial writes row's trial of sc as a one-trial scenario and checks
// that it fails as the row did. When no scenario seed gives the trial's
// seed to trial 0, the smallest seed up to seedSearch whose trial fails
// the same way stands in.
func pickTrial(ctx context.Context, sc *chaos.Scenario, spec *workloads.Spec, row reports.Row) (*Picked, error) {
	one, err := clone(sc)
	if err != nil {
		return nil, err
	}
	one.AllAlgos, one.Algorithms = false, []chaos.Algorithm{scenarioAlgo(sc, spec, row)}
	one.Nodes, one.Trials, one.TraceHash = strconv.Itoa(row.Nodes), 1, ""
	var cols []chaos.ColumnCondition
	for _, c := range one.Expect.Columns {
		if c.Applies(row.Algorithm, row.Variant) {
			cols = append(cols, c)
		}
	}
	one.Expect.Columns = cols
	seed, exact := fileSeed(row.Seed)
	seeds := []uint64{seed}
	if !exact {
		seeds = seeds[:0]
		for k := uint64(1); k <= seedSearch; k++ {
			seeds = append(seeds, k)
		}
	}
	// A stand-in seed must fail as the row did (its expect column's
	// first failure; any failure for one judged over trials).
	want, judged := First(&Outcome{Row: row})
	for _, s := range seeds {
		one.Seed = s
		c, o, err := runScenario(ctx, one)
		if err != nil {
			return nil, err
		}
		v, ok := First(o)
		if ok && (exact || !judged || v.Property == want.Property && v.Kind == want.Kind) {
			return &Picked{Scenario: c, Outcome: o, Violation: v}, nil
		}
	}
	if exact {
		return nil, fmt.Errorf("scenario %s, %s N=%d trial %d (seed %d): run alone as one trial it passes", sc.Name, algoLabel(row), row.Nodes, row.Trial, row.Seed)
	}
	return nil, fmt.Errorf("scenario %s, %s N=%d trial %d (seed %d): no one-trial scenario of seed 1 to %d fails as it does", sc.Name, algoLabel(row), row.Nodes, row.Trial, row.Seed, seedSearch)
}

// seedSearch bounds the seeds tried for a trial no file seed reproduces,
// and those the seed pass tries.
const seedSearch = 32

// scenarioAlgo is the scenario's entry for row's algorithm: one of "all"
// (spec lists those first), or the entry it names.
func scenarioAlgo(sc *chaos.Scenario, spec *workloads.Spec, row reports.Row) chaos.Algorithm {
	all := len(spec.Algos) - len(sc.Algorithms)
	for i, a := range spec.Algos {
		if a.Alg.Name != row.Algorithm || a.Variant != row.Variant {
			continue
		}
		if i < all {
			return chaos.Algorithm{Name: row.Algorithm, Variant: row.Variant}
		}
		return sc.Algorithms[i-all]
	}
	return chaos.Algorithm{Name: row.Algorithm, Variant: row.Variant}
}

// clone is a deep copy of sc: the scenario its file reads back to.
func clone(sc *chaos.Scenario) (*chaos.Scenario, error) {
	b, err := chaos.Format(sc)
	if err != nil {
		return nil, err
	}
	scs, err := chaos.Parse(sc.File, b)
	if err != nil {
		return nil, fmt.Errorf("reading back scenario %s: %w", sc.Name, err)
	}
	return scs[0], nil
}

// runScenario writes sc as its file, reads it back, and runs its one
// trial: the scenario returned is the one read back, so what ran is what
// a file says.
func runScenario(ctx context.Context, sc *chaos.Scenario) (*chaos.Scenario, *Outcome, error) {
	c, err := clone(sc)
	if err != nil {
		return nil, nil, err
	}
	spec, err := workloads.FromScenario(c)
	if err != nil {
		return nil, nil, err
	}
	o, err := Run(ctx, spec)
	if err != nil {
		return nil, nil, err
	}
	return c, o, nil
}
