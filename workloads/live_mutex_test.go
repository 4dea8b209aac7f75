//go:build unix

package workloads

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/chaos"
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
// verdicts, the same kind of liveness loss and the same number of entries,
// never two processes in the section, on real processes killed with
// SIGKILL as in the simulator.
func TestLiveMutexFaults(t *testing.T) {
	r := liveRuntime(t)
	for _, file := range []string{"mutex-coordinator-crash", "mutex-token-loss"} {
		sims, lives := mutexScenario(t, file, "sim"), mutexScenario(t, file, "live")
		for i := range sims {
			simPlan, livePlan := sims[i].Plan(), lives[i].Plan()
			for j := range simPlan {
				s := RunSim(simPlan[j], nil)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				l := RunLiveTrial(ctx, r, livePlan[j], nil)
				cancel()
				name := s.Scenario + " " + s.Algorithm + "/" + s.Variant
				if l.Error != "" {
					t.Fatalf("%s live: %s", name, l.Error)
				}
				t.Logf("%s: sim correct=%v live=%v entries=%v %q; live correct=%v live=%v entries=%v %q faults %q",
					name, s.Correct, s.Live, s.Entries.Get(), s.Violation, l.Correct, l.Live, l.Entries.Get(), l.Violation, l.Faults)
				if !strings.Contains(l.Faults, ":crash(") || s.SafetyViolations != 0 {
					t.Errorf("%s: live fault schedule %q, %d safety violations on the simulator", name, l.Faults, s.SafetyViolations)
				}
				kind := func(v string) string { k, _, _ := strings.Cut(v, " "); return k }
				if l.Correct != s.Correct || l.Live != s.Live || l.SafetyViolations != 0 || kind(l.Violation) != kind(s.Violation) || l.Entries != s.Entries {
					t.Errorf("%s: live run (correct %v, live %v, %v entries, %q) is not what the simulator predicts (correct %v, live %v, %v entries, %q)",
						name, l.Correct, l.Live, l.Entries.Get(), l.Violation, s.Correct, s.Live, s.Entries.Get(), s.Violation)
				}
			}
		}
	}
}

// The halves partition (mutex-partition) on the simulator: every
// algorithm's answer to a suspected process is right only for a crash, so
// under a heartbeat detector central (a coordinator in each half),
// ricart-agrawala and maekawa (the other half's permissions and votes
// taken as given) let two processes into the section, and the checker
// says so; the token ring stays safe and starves. Live, which of these
// happens depends on when the heartbeats fall silent, and is not pinned.
func TestMutexPartition(t *testing.T) {
	for _, spec := range mutexScenario(t, "mutex-partition", "sim") {
		for _, tr := range spec.Plan() {
			row := RunSim(tr, nil)
			name := row.Algorithm + "/" + row.Variant
			if row.Algorithm == "token-ring" {
				if row.SafetyViolations != 0 || row.Live || !strings.HasPrefix(row.Violation, "starved") {
					t.Errorf("%s: %d violations, live %v, %q; want safe and starved", name, row.SafetyViolations, row.Live, row.Violation)
				}
				continue
			}
			if row.SafetyViolations == 0 || row.Correct || !strings.HasPrefix(row.Violation, "two-in-section") || row.Expect == "pass" {
				t.Errorf("%s: %d violations, %q, expect %q; want two in the section", name, row.SafetyViolations, row.Violation, row.Expect)
			}
		}
	}
}

// A token ring never comes to rest: its token is always in flight, at
// the deadline too, and a fault-free live trial is judged as the
// simulator judges it (every request entered, nobody twice in the
// section) rather than failed for the message in flight. Live, a host
// that takes more than 2T a hop (146 TOKENs beside four busy loops)
// still never left the token at rest for half the trial, which a ring
// whose token rests does at any load: that is checked instead, and the
// shortfall said to be the host's.
func TestLiveTokenRingRunsToItsDeadline(t *testing.T) {
	r := liveRuntime(t)
	for _, runtime := range []string{"sim", "live"} {
		s := spec(t, "token-ring", "4", "random", "all", "5ms", 1)
		s.Deadline = 300 * 5 * time.Millisecond
		tr := s.Plan()[0]
		var trace bytes.Buffer
		row := RunSim(tr, nil)
		if runtime == "live" {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			row = RunLiveTrial(ctx, r, tr, &trace)
			cancel()
		}
		if row.Error != "" || !row.Correct || !row.Live || row.SafetyViolations != 0 || !row.Entries.IsSet() || row.Entries.Get() != 4 {
			t.Errorf("%s: error %q, correct %v, live %v, %d violations, entries %v; want 4 entries, correct and live",
				runtime, row.Error, row.Correct, row.Live, row.SafetyViolations, row.Entries)
		}
		if row.Messages >= 150 {
			continue
		}
		rest := s.Deadline // the simulator's hops take T: it has no shortfall to explain
		if runtime == "live" {
			rest = tokenRest(tracedTrials(t, trace.String())[0], s.Deadline)
		}
		if rest >= s.Deadline/2 {
			t.Errorf("%s: %d TOKENs in 300T, at rest for %v of %v; want one a T, or live not fewer than one every 2T or never at rest for half the trial (the token never rests)", runtime, row.Messages, rest, s.Deadline)
		} else {
			t.Logf("%s: %d TOKENs in 300T, fewer than one every 2T, at rest at most %v at a time: the token never rested, the host took %v a hop", runtime, row.Messages, rest, s.Deadline/time.Duration(row.Messages))
		}
	}
}

// tokenRest is the longest time in a trial, to its deadline, in which no
// TOKEN was sent or delivered: the token held at a process.
func tokenRest(evs []traced, deadline time.Duration) time.Duration {
	var last, longest time.Duration
	for _, e := range evs {
		if e.Kind == "TOKEN" && (e.Ev == "send" || e.Ev == "recv") {
			longest, last = max(longest, e.T-last), e.T
		}
	}
	return max(longest, deadline-last)
}
