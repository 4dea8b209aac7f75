package hunt

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// result is what one candidate's trial showed.
type result struct {
	invalid  error // the scenario checks refused the candidate: it did not run
	algo     string
	states   map[uint64]struct{}
	violated bool
	beyond   bool // a bounded-delay algorithm's message outlasted its D
	what     string
	bound    time.Duration // under --within: the liveness bound it was held to
}

// load reads a candidate's scenario as `electbench run` reads a file: by
// chaos.Parse, then workloads.FromScenario. file names it in errors.
func load(file string, data []byte) (*chaos.Scenario, *workloads.Spec, error) {
	ss, err := chaos.Parse(file, data)
	if err != nil {
		return nil, nil, err
	}
	if len(ss) != 1 {
		return nil, nil, fmt.Errorf("%s: %d scenarios, want one", file, len(ss))
	}
	spec, err := workloads.FromScenario(ss[0])
	if err != nil {
		return nil, nil, err
	}
	return ss[0], spec, nil
}

// name is the k-th candidate's scenario name.
func name(k int) string { return "hunt-" + strconv.Itoa(k) }

// deadline is the deadline of a candidate on n processes, in T: the
// base's, or the runtime's default (trial.DefaultDeadline, 100N+1000 T).
func (s *Space) deadlineOf(n int) string {
	if s.deadline != "" {
		return s.deadline
	}
	return inT(float64(100*n + 1000))
}

// scenario is candidate c written as the k-th candidate's scenario file,
// with the property's expectation.
func (h *hunter) scenario(c *candidate, k int) *yaml.Node {
	return h.o.Space.render(c, name(k), h.o.Property.expectation(h.o.Space.deadlineOf(c.nodes), h.o.Space.expect))
}

// evaluate runs the k-th candidate and judges it.
func (h *hunter) evaluate(ctx context.Context, c *candidate, k int) result {
	data, err := yaml.Marshal(h.scenario(c, k))
	if err != nil {
		return result{invalid: err}
	}
	_, spec, err := load(name(k), data)
	if err != nil {
		return result{invalid: err}
	}
	return h.judge(ctx, spec)
}

// judge runs spec's one trial, watching its coverage, and judges it by
// the expectation it was written with (workloads.CheckRun, as `electbench
// run` does) and, under --within, by the liveness bound after the last
// fault.
func (h *hunter) judge(ctx context.Context, spec *workloads.Spec) result {
	t := spec.Plan()[0]
	var cov *coverage
	res := t.Watch(ctx, workloads.Sim, watchCoverage(&cov))
	row := &res.Row
	r := result{algo: algoName(row), beyond: t.Algo.Alg.BoundedDelay && row.Overruns.V > 0}
	if cov != nil {
		r.states = cov.states
	}
	if fails := workloads.CheckRun([]*workloads.Spec{spec}, []reports.Row{*row}); len(fails) > 0 {
		r.violated, r.what = true, fails[0].What
	} else if res.Record != nil {
		var at []time.Duration
		for _, f := range res.Record.Faults {
			at = append(at, f.At)
		}
		if bound, ok := h.o.Property.livenessBound(at, res.Record.FirstInitiation, res.Record.T); ok && row.DecidedS.Set {
			r.bound = bound
			if decided := time.Duration(math.Round(row.DecidedS.V * 1e9)); decided > bound {
				r.violated = true
				r.what = fmt.Sprintf("liveness within %s of the last fault: decided %v after the first initiation, %v after the bound", h.o.Property.Within.Text, decided, decided-bound)
			}
		}
	}
	if r.violated && len(res.Verdict.Recorded) > 0 && !strings.Contains(r.what, res.Verdict.Recorded[0].Kind) {
		r.what += "; first violation " + res.Verdict.Recorded[0].String()
	}
	return r
}

func algoName(r *reports.Row) string {
	if r.Variant == "" || r.Variant == "default" {
		return r.Algorithm
	}
	return r.Algorithm + "/" + r.Variant
}

// finish writes the counterexample: the candidate's scenario, with a
// description saying what was violated, by whom and when, and under
// --within the liveness bound it broke. It runs the file once more, read
// back as `electbench run` reads it, and refuses it unless the same
// violation occurs: the file is what fails, not only what ran.
func (h *hunter) finish(ctx context.Context, c *candidate, r result, f *Finding) (*Finding, error) {
	m := h.scenario(c, f.Trial)
	set(m, "name", text("counterexample"))
	if r.bound > 0 {
		set(m, "expect", mapping("liveness", "within "+r.bound.String()))
	}
	kind := "counterexample"
	if f.Beyond {
		kind = "violation beyond the model (a message outlasted the bound D: the overruns column)"
	}
	desc := fmt.Sprintf("%s found by electbench hunt (seed %d, candidate %d): %s violated by %s on %d processes with %d faults: %s",
		kind, h.o.Seed, f.Trial, h.o.Property, f.Algorithm, f.Nodes, f.Faults, f.What)
	set(m, "description", text(desc))
	data, err := yaml.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("writing the counterexample: %w", err)
	}
	sc, _, err := load("counterexample.yaml", data)
	if err != nil {
		return nil, fmt.Errorf("reading the counterexample back: %w", err)
	}
	if f.File, err = chaos.Format(sc); err != nil {
		return nil, err
	}
	_, spec, err := load("counterexample.yaml", f.File)
	if err != nil {
		return nil, fmt.Errorf("reading the written counterexample back: %w", err)
	}
	if again := h.judge(ctx, spec); !again.violated {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("hunt: candidate %d violated %s but its counterexample file does not: %s", f.Trial, h.o.Property, f.What)
	}
	return f, nil
}
