package shrink

import (
	"cmp"
	"context"
	"fmt"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// Replayed is what replaying a one-trial scenario gave: its first run,
// and how many runs gave that run's trace and verdict.
type Replayed struct {
	First *Outcome
	Runs  int // runs made
	Same  int // of them, with the first's trace hash and verdict
	// Differ says how the first run that differed did, "" when none did.
	Differ string
}

// Replay runs spec's one trial times times and compares every run's trace
// hash and verdict with the first's: the simulator is deterministic, so a
// difference is a bug (in electbench or in a node program that draws
// from a source the runtime did not seed).
func Replay(ctx context.Context, spec *workloads.Spec, times int) (*Replayed, error) {
	if times < 1 {
		return nil, fmt.Errorf("replaying %d times: want at least once", times)
	}
	r := &Replayed{}
	for range times {
		o, err := Run(ctx, spec)
		if err != nil {
			return nil, err
		}
		r.Runs++
		if r.First == nil {
			r.First, r.Same = o, 1
			continue
		}
		switch {
		case o.Hash != r.First.Hash:
			r.Differ = fmt.Sprintf("run %d's trace hash is %s, run 1's %s", r.Runs, o.Hash, r.First.Hash)
		case verdict(o.Row) != verdict(r.First.Row):
			r.Differ = fmt.Sprintf("run %d's verdict is %q, run 1's %q", r.Runs, verdict(o.Row), verdict(r.First.Row))
		default:
			r.Same++
			continue
		}
		return r, nil // the first difference says it
	}
	return r, nil
}

// verdict is what a row says of its trial's correctness, safety,
// liveness and expectations.
func verdict(r reports.Row) string {
	return fmt.Sprintf("correct=%t live=%t safety_violations=%d violation=%s expect=%s", r.Correct, r.Live, r.SafetyViolations, r.Violation, r.Expect)
}

// Verify reads r's scenario back as the file Write writes and replays it
// times times: it fails unless every run has the scenario's trace hash
// and still shows r's violation. The shrunk file's promise, checked
// before it is written.
func Verify(ctx context.Context, r *Result, times int) error {
	file, err := chaos.Format(r.Scenario)
	if err != nil {
		return err
	}
	name := cmp.Or(r.Scenario.File, ShrunkFile) // a program's relative command resolves as it did
	specs, err := workloads.ParseScenarios(name, file)
	if err != nil {
		return fmt.Errorf("the shrunk scenario does not read back: %w", err)
	}
	rep, err := Replay(ctx, specs[0], times)
	switch {
	case err != nil:
		return err
	case rep.Same != times:
		return fmt.Errorf("the shrunk scenario replayed %d of %d times alike: %s", rep.Same, times, rep.Differ)
	case rep.First.Hash != r.Scenario.TraceHash:
		return fmt.Errorf("the shrunk scenario replayed with trace hash %s, not its own %s", rep.First.Hash, r.Scenario.TraceHash)
	case !rep.First.Failed() || !r.Violation.HeldBy(rep.First):
		return fmt.Errorf("the shrunk scenario no longer fails with %s (expect %q)", r.Violation, rep.First.Row.Expect)
	}
	return nil
}
