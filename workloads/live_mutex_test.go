//go:build unix

package workloads

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/chaos"
	_ "github.com/electbench/electbench/nodes/bully"
	_ "github.com/electbench/electbench/nodes/mutex"
	"github.com/electbench/electbench/reports"
)

// mutexScenario builds the spec of every scenario of a built-in file, one
// trial each, for runtime.
func mutexScenario(t *testing.T, file, runtime string) []*Spec {
	t.Helper()
	src, ok := chaos.Builtin(file)
	if !ok {
		t.Fatalf("no built-in %s", file)
	}
	scs, err := chaos.Parse(file+".yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	var specs []*Spec
	for _, sc := range scs {
		sc.Runtime, sc.Trials = runtime, 1
		spec, err := FromScenario(sc)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, spec)
	}
	return specs
}

// "Live at N = 5 with a crashed coordinator/token holder: the behaviour the
// simulator predicts" (ALGORITHMS.md, "Mutual exclusion"): the same
// verdicts, the same number of entries, the same kind of liveness loss,
// and never two processes in the section, on real processes killed with
// SIGKILL as in the simulator.
func TestLiveMutexFaults(t *testing.T) {
	r := liveRuntime(t)
	for _, file := range []string{"mutex-coordinator-crash", "mutex-token-loss"} {
		sims, lives := mutexScenario(t, file, "sim"), mutexScenario(t, file, "live")
		for i := range sims {
			simPlan, livePlan := sims[i].Plan(), lives[i].Plan()
			for j := range simPlan {
				s := RunTrial(simPlan[j], nil)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				l := RunLiveTrial(ctx, r, livePlan[j], nil)
				cancel()
				name := s.Scenario + " " + s.Algorithm + " " + s.MessagesByKind.String()
				if l.Error != "" {
					t.Fatalf("%s live: %s", name, l.Error)
				}
				t.Logf("%s: sim correct=%v live=%v entries=%v %q; live correct=%v live=%v entries=%v %q faults %q",
					name, s.Correct, s.Live, s.Entries.V, s.Violation, l.Correct, l.Live, l.Entries.V, l.Violation, l.Faults)
				for _, row := range []reports.Row{s, l} {
					if row.SafetyViolations != 0 || !strings.Contains(row.Faults, ":crash(") {
						t.Errorf("%s %s: %d safety violations (%q), faults %q", name, row.Runtime, row.SafetyViolations, row.Violation, row.Faults)
					}
				}
				kind := func(v string) string { k, _, _ := strings.Cut(v, " "); return k }
				if l.Correct != s.Correct || l.Live != s.Live || l.Entries != s.Entries || kind(l.Violation) != kind(s.Violation) {
					t.Errorf("%s: live run (correct %v, live %v, %v entries, %q) is not what the simulator predicts (correct %v, live %v, %v entries, %q)",
						name, l.Correct, l.Live, l.Entries.V, l.Violation, s.Correct, s.Live, s.Entries.V, s.Violation)
				}
			}
		}
	}
}
