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
	invalid error // the scenario checks refused the candidate: it did not run
	cut     bool  // the search was interrupted as it ran: no result
	algo    string
	states  map[uint64]time.Duration // each state reached, with when it was first
	// score is how close the trial came to violating a column property
	// (its column, signed so that higher is closer); scored is false for
	// the other properties and an empty cell.
	score    float64
	scored   bool
	violated bool
	beyond   string // why the violation lies beyond the algorithm's model; "" within it
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

// deadlineOf is the deadline of a candidate on n processes, in T: the
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
	if ctx.Err() != nil {
		return result{cut: true} // perhaps stopped short: no result
	}
	row := &res.Row
	r := result{algo: algoName(row)}
	if cov != nil {
		r.states = cov.states
	}
	r.score, r.scored = h.o.Property.score(row)
	if fails := workloads.CheckRun([]*workloads.Spec{spec}, []reports.Row{*row}); len(fails) > 0 && h.o.Property.shows(row) {
		r.violated, r.what = true, fails[0].What
	} else if res.Record != nil {
		var at []time.Duration
		for _, f := range res.Record.Faults {
			at = append(at, f.At)
		}
		if bound, ok := h.o.Property.livenessBound(at, res.Record.FirstInitiation, res.Record.T); ok && row.DecidedS.IsSet() {
			r.bound = bound
			if decided := time.Duration(math.Round(row.DecidedS.Get() * 1e9)); decided > bound {
				r.violated = true
				r.what = fmt.Sprintf("liveness within %s of the last fault: decided %v after the first initiation, %v after the bound", h.o.Property.Within.Text, decided, decided-bound)
			}
		}
	}
	if r.violated {
		r.beyond = beyond(&t, row, cov, res.Record == nil || res.Record.FirstInitiation >= 0)
	}
	if r.violated && len(res.Verdict.Recorded) > 0 && !strings.Contains(r.what, res.Verdict.Recorded[0].Kind) {
		r.what += "; first violation " + res.Verdict.Recorded[0].String()
	}
	return r
}

// beyond says why a violating trial lies outside its algorithm's model,
// "" when it does not: a bounded-delay algorithm's message took longer
// than its D (the overruns column: every bully breaks so), no process
// was left alive to elect, or a quorum algorithm failed liveness with no
// majority alive at the end (safety it must keep even then), or the
// trial failed liveness with no process ever asked to elect (initiated
// false: its initiators were down before they were told to, and a
// terminating algorithm elects only when asked).
func beyond(t *workloads.Trial, row *reports.Row, cov *coverage, initiated bool) string {
	if t.Algo.Alg.BoundedDelay && row.Overruns.Get() > 0 {
		return fmt.Sprintf("%d messages outlasted the delay bound D", row.Overruns.Get())
	}
	if !initiated && row.SafetyViolations == 0 {
		return "no process was asked to elect: the initiators were down"
	}
	if cov == nil {
		return ""
	}
	alive := cov.aliveCount()
	switch {
	case alive == 0:
		return "every process was down at the end"
	case t.Algo.Alg.Quorum != nil && row.SafetyViolations == 0 && 2*alive <= t.Nodes:
		return fmt.Sprintf("only %d of %d processes were up at the end, no majority", alive, t.Nodes)
	}
	return ""
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
	if f.Beyond != "" {
		kind = "violation beyond the model (" + f.Beyond + ")"
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
	// Not cancelled with ctx: an interrupt that comes now still keeps
	// what was found (one trial more).
	if again := h.judge(context.WithoutCancel(ctx), spec); !again.violated {
		return nil, fmt.Errorf("hunt: candidate %d violated %s but its counterexample file does not: %s", f.Trial, h.o.Property, f.What)
	}
	return f, nil
}
