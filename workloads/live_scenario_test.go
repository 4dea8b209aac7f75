//go:build unix

package workloads

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
)

// liveScenario parses a built-in scenario, narrows it to one algorithm at
// one size with one trial, and builds its spec for runtime (sim or live).
func liveScenario(t *testing.T, file, name, algo, nodes, latency, runtime string) *Spec {
	t.Helper()
	src, ok := chaos.Builtin(file)
	if !ok {
		t.Fatalf("no built-in %s", file)
	}
	scs, err := chaos.Parse(file+".yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		if sc.Name != name {
			continue
		}
		sc.Runtime, sc.Nodes, sc.Trials, sc.AllAlgos = runtime, nodes, 1, false
		sc.Algorithms = []chaos.Algorithm{{Name: algo}}
		if latency != "" {
			sc.Network.Latency = latency
		}
		spec, err := FromScenario(sc)
		if err != nil {
			t.Fatal(err)
		}
		return spec
	}
	t.Fatalf("%s has no scenario %s", file, name)
	return nil
}

// runBoth runs a narrowed scenario on the simulator and live, and returns
// both rows.
func runBoth(t *testing.T, rt Runtime, file, name, algo, nodes, latency string) (simRow, liveRow reports.Row) {
	t.Helper()
	simRow = RunSim(liveScenario(t, file, name, algo, nodes, latency, "sim").Plan()[0], nil)
	spec := liveScenario(t, file, name, algo, nodes, latency, "live")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	liveRow = RunLiveTrial(ctx, rt, spec.Plan()[0], nil)
	if liveRow.Error != "" {
		t.Fatalf("%s live: %s", name, liveRow.Error)
	}
	t.Logf("%s %s: sim correct=%v live=%v leader=%q violations=%d faults %q", name, algo, simRow.Correct, simRow.Live, simRow.Leader, simRow.SafetyViolations, simRow.Faults)
	t.Logf("%s %s: live correct=%v live=%v leader=%q violations=%d faults %q (%v)", name, algo, liveRow.Correct, liveRow.Live, liveRow.Leader, liveRow.SafetyViolations, liveRow.Faults, time.Since(start).Round(time.Millisecond))
	return simRow, liveRow
}

// The example scenarios that need only crashes, pauses, partitions and
// toxics tell the same story on live processes as on the simulator: the
// harness fires their triggers from the nodes' events, resolves their
// selectors when each fault starts, and records the schedule.
func TestLiveExampleScenarios(t *testing.T) {
	r := liveRuntime(t)
	t.Run("halves-partition", func(t *testing.T) {
		// Bully under halves from the start: each half elects its own
		// highest, two leaders, flagged.
		s, l := runBoth(t, r, "halves-partition", "halves-partition", "bully", "4", "5ms")
		for _, row := range []reports.Row{s, l} {
			if !row.Live || row.Leader != "" || row.Correct || row.SafetyViolations == 0 {
				t.Errorf("%s: live %v leader %q correct %v violations %d", row.Runtime, row.Live, row.Leader, row.Correct, row.SafetyViolations)
			}
		}
		if !strings.HasPrefix(l.Faults, "t=0s:partition(halves)[0,1|2,3]") {
			t.Errorf("schedule %q", l.Faults)
		}
	})
	t.Run("paused-leader", func(t *testing.T) {
		// The leader paused after its election is replaced; resumed, it
		// still believes itself leader: a wrong leader.
		// Both runtimes pause the same position: the leader as decided.
		s, l := runBoth(t, r, "paused-leader", "paused-leader", "bully", "4", "5ms")
		what := func(faults string) []string {
			var out []string
			for _, e := range strings.Split(faults, ";") {
				_, w, _ := strings.Cut(e, ":")
				out = append(out, w)
			}
			return out
		}
		if got, want := what(l.Faults), what(s.Faults); strings.Join(got, ";") != strings.Join(want, ";") || len(got) != 2 ||
			!strings.HasPrefix(got[0], "pause(") || !strings.HasPrefix(got[1], "resume(") {
			t.Errorf("live schedule %q, sim %q", l.Faults, s.Faults)
		}
		for _, row := range []reports.Row{s, l} {
			if !strings.HasPrefix(row.Violation, "wrong-leader") {
				t.Errorf("%s: violation %q", row.Runtime, row.Violation)
			}
		}
	})
	t.Run("quorum-halves", func(t *testing.T) {
		// Two halves of two: no majority anywhere, nobody is elected.
		s, l := runBoth(t, r, "quorum-halves", "quorum-halves", "raft", "4", "5ms")
		for _, row := range []reports.Row{s, l} {
			if row.Live || row.Leader != "" || row.SafetyViolations != 0 {
				t.Errorf("%s: live %v leader %q violations %d", row.Runtime, row.Live, row.Leader, row.SafetyViolations)
			}
		}
	})
	t.Run("quorum-leader-crash", func(t *testing.T) {
		// The leader crashes 20T after the election; the rest elect anew.
		s, l := runBoth(t, r, "quorum-leader-crash", "quorum-leader-crash", "raft", "5", "5ms")
		for _, row := range []reports.Row{s, l} {
			if !row.Correct || !row.Live || row.SafetyViolations != 0 || !strings.Contains(row.Faults, ":crash(") || !row.FailoverS.IsSet() {
				t.Errorf("%s: correct %v live %v faults %q failover %v", row.Runtime, row.Correct, row.Live, row.Faults, row.FailoverS)
			}
		}
		if l.Expect != "pass" {
			t.Errorf("live expect %q", l.Expect)
		}
	})
}

// A live scenario with a fault the live runtime cannot apply is refused at
// validation, naming the file, the fault and the reason.
func TestLiveScenarioRejects(t *testing.T) {
	src := `name: x
algorithms: [bully]
nodes: 4
runtime: live
detector: heartbeat(2T,6T)
faults:
  - kind: crash
    target: leader
  - kind: reorder
    probability: 0.1
  - kind: suspect
    target: 0
  - kind: duplicate
    probability: 0.1
`
	_, err := ParseScenarios("x.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	for _, want := range []string{
		"x.yaml:9:11: faults[1].kind: runtime live cannot apply a reorder fault",
		"faults[2].kind: runtime live cannot apply a suspect fault under the heartbeat detector",
		"faults[3].kind: runtime live cannot apply a duplicate fault",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	// The same file on the simulator is fine.
	if _, err := ParseScenarios("x.yaml", []byte(strings.Replace(src, "runtime: live", "runtime: sim", 1))); err != nil {
		t.Errorf("sim: %v", err)
	}
}

// Link faults become Toxiproxy toxics on the affected proxies, added when
// their trigger fires and removed when healed; the delay shows in the run.
func TestLiveScenarioToxics(t *testing.T) {
	r := liveRuntime(t)
	src := `name: toxics
algorithms: [chang-roberts]
nodes: 4
ids: ascending
trials: 1
runtime: RUNTIME
network:
  latency: 5ms
faults:
  - kind: latency
    name: slow
    latency: 4T
    at: election-start
  - heal: slow
    at: leader-elected
  - kind: bandwidth
    target: 1
    direction: out
    rate: 1000
    for: 20T
`
	s, l := simAndLive(t, r, "toxics.yaml", src)
	t.Logf("sim %q turnaround %v; live %q turnaround %v", s.Faults, s.TurnaroundT, l.Faults, l.TurnaroundT)
	for _, want := range []string{":latency[all]", ":bandwidth[out:1]", ":heal latency", ":heal bandwidth"} {
		if !strings.Contains(l.Faults, want) {
			t.Errorf("live schedule %q lacks %q", l.Faults, want)
		}
	}
	if !l.Correct || !l.Live || !l.TurnaroundT.IsSet() || l.TurnaroundT.Get() < 0.8*s.TurnaroundT.Get() {
		t.Errorf("live: correct %v live %v turnaround %v T, the simulator's %v T", l.Correct, l.Live, l.TurnaroundT, s.TurnaroundT)
	}
}

// A kind built from an existing effect runs on both runtimes with nothing
// but its own file (chaos/kind_jitter_burst.go): on the live cluster it is
// a Toxiproxy latency toxic of jitter/2 ± jitter/2, and every hop of the
// ring's 3N−1 waits for it.
func TestLiveJitterBurst(t *testing.T) {
	r := liveRuntime(t)
	src := `name: burst
algorithms: [chang-roberts]
nodes: 4
ids: ascending
trials: 1
runtime: RUNTIME
network:
  latency: 5ms
faults:
  - {kind: jitter-burst, jitter: 8T, at: start, for: 200T}
`
	s, l := simAndLive(t, r, "burst.yaml", src)
	t.Logf("sim %q turnaround %v T; live %q turnaround %v T", s.Faults, s.TurnaroundT, l.Faults, l.TurnaroundT)
	for _, row := range []reports.Row{s, l} {
		if !strings.Contains(row.Faults, "t=0s:jitter-burst[all]") || !row.Correct || !row.Live || row.Messages != 11 {
			t.Errorf("%s: faults %q, correct %v, live %v, %d messages (3N−1 = 11)", row.Runtime, row.Faults, row.Correct, row.Live, row.Messages)
		}
		// 11 hops of T plus a uniform [0, 8T] each: 55 T on average; the
		// fault-free run takes 11 T.
		if !row.TurnaroundT.IsSet() || row.TurnaroundT.Get() < 20 {
			t.Errorf("%s: turnaround %v T: the burst did not delay the ring", row.Runtime, row.TurnaroundT)
		}
	}
}

// simAndLive runs the first trial of a scenario file, whose runtime is
// written RUNTIME, on the simulator and on the live cluster.
func simAndLive(t *testing.T, r Runtime, file, src string) (sim, live reports.Row) {
	t.Helper()
	var rows []reports.Row
	for _, rt := range []string{"sim", "live"} {
		specs, err := ParseScenarios(file, []byte(strings.Replace(src, "RUNTIME", rt, 1)))
		if err != nil {
			t.Fatal(err)
		}
		tr := specs[0].Plan()[0]
		if rt == "sim" {
			rows = append(rows, RunSim(tr, nil))
		} else {
			rows = append(rows, runLive(t, r, tr))
		}
	}
	return rows[0], rows[1]
}
