package workloads

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/electbench/electbench/reports"
)

// writeTrace writes one trial's trace, after its header line; the header
// of a live trial says so (runtime), a simulated one's does not.
func writeTrace(w io.Writer, t Trial, runtime string, trace *spool) error {
	var rt string
	if runtime != "" {
		rt = fmt.Sprintf(",\"runtime\":%q", runtime)
	}
	if _, err := fmt.Fprintf(w, "{\"trial\":%d,\"algorithm\":%q,\"variant\":%q,\"nodes\":%d,\"seed\":%d,\"scenario\":%q%s}\n",
		t.Trial, t.Algo.Alg.Name, t.Algo.Variant, t.Nodes, t.Seed, t.Spec.Scenario, rt); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return trace.copyTo(w)
}

// BaseRow is the trial's row before it runs: the columns that identify it
// (reports.Row.Key), which --resume matches against earlier results.
func (t Trial) BaseRow() reports.Row {
	s := t.Spec
	row := reports.Row{
		Algorithm: t.Algo.Alg.Name, Variant: t.Algo.Variant, Runtime: "sim", Scenario: s.Scenario,
		Nodes: t.Nodes, Arrangement: s.IDs.String() + s.RankBy.suffix(), Initiators: s.Initiators.String(),
		Trial: t.Trial, Seed: t.Seed, Latency: s.Latency.String(), TS: s.Latency.Mean().Seconds(), DS: s.Latency.Bound().Seconds(),
	}
	if t.Algo.Alg.StartsAll {
		row.Initiators = "all"
	}
	return row
}

// RunSim runs one planned trial on the simulator and returns its row. It
// never panics: an algorithm that panics yields a row whose error column
// says so.
func RunSim(t Trial, trace io.Writer) reports.Row {
	return t.simulate(context.Background(), Sim, trace, nil)
}

// inUnits returns d in seconds and in units of T. Under the reference model
// both d and T are whole nanoseconds and d is a whole multiple of T, so the
// ratio is an exact integer.
func inUnits(d, t time.Duration) (reports.Opt[float64], reports.Opt[float64]) {
	return reports.Some(d.Seconds()), reports.Some(float64(d) / float64(t))
}

func oneLine(s string) string {
	if isOneLine(s) {
		return s // most are: a violation a trial, without two allocations
	}
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine reports whether oneLine would return s as it is: printable
// ASCII, single spaces between words, none at either end.
func isOneLine(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' || s[i] == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}
