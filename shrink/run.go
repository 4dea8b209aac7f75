package shrink

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// Outcome is one run of a one-trial scenario: its row, the expectations it
// failed, and its trace as `electbench run --trace` writes it (a header
// line, then the events), with the trace's sha256.
type Outcome struct {
	Row      reports.Row
	Failures []workloads.Failure
	Trace    []byte
	Hash     string // hex sha256 of Trace
}

// Failed reports whether the trial failed an expectation.
func (o *Outcome) Failed() bool { return len(o.Failures) > 0 }

// Run runs spec's one trial on the simulator, with its trace. A spec of
// more than one trial is refused: a trace hash fingerprints one trial.
func Run(ctx context.Context, spec *workloads.Spec) (*Outcome, error) {
	plan := spec.Plan()
	if len(plan) != 1 {
		return nil, fmt.Errorf("scenario %s: %d trials; a replayed scenario is one trial (trials: 1, one algorithm, one size)", spec.Scenario, len(plan))
	}
	var trace bytes.Buffer
	var rows []reports.Row
	x := &workloads.Executor{Parallel: 1, Trace: &trace}
	emit := func(r reports.Row) error { rows = append(rows, r); return nil }
	if err := x.Execute(ctx, plan, emit); err != nil {
		return nil, fmt.Errorf("running scenario %s: %w", spec.Scenario, err)
	}
	if len(rows) != 1 {
		return nil, fmt.Errorf("running scenario %s: %d rows for one trial", spec.Scenario, len(rows))
	}
	sum := sha256.Sum256(trace.Bytes())
	return &Outcome{
		Row: rows[0], Failures: workloads.CheckRun([]*workloads.Spec{spec}, rows),
		Trace: trace.Bytes(), Hash: hex.EncodeToString(sum[:]),
	}, nil
}

// HashMismatch is a trial whose trace is not the one its file's
// trace-hash names.
type HashMismatch struct {
	Scenario  string
	Want, Got string
}

func (e *HashMismatch) Error() string {
	return fmt.Sprintf("scenario %s: the trace hash is %s, the file's trace-hash is %s: the trial no longer runs as it did when the hash was taken", e.Scenario, e.Got, e.Want)
}

// CheckHash runs spec's trial and compares its trace hash with the file's
// trace-hash; nil when the file gives none or they are equal, a
// *HashMismatch when they differ.
func CheckHash(ctx context.Context, spec *workloads.Spec) error {
	if spec.TraceHash == "" {
		return nil
	}
	o, err := Run(ctx, spec)
	if err != nil {
		return err
	}
	if o.Hash != spec.TraceHash {
		return &HashMismatch{Scenario: spec.Scenario, Want: spec.TraceHash, Got: o.Hash}
	}
	return nil
}
