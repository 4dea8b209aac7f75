package workloads

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/bully"
	_ "github.com/electbench/electbench/nodes/etcdraft"
	_ "github.com/electbench/electbench/nodes/mutex"
	_ "github.com/electbench/electbench/nodes/quorum"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/reports"
)

// runScenarios runs every scenario of a built-in file and returns its rows
// (by scenario) and the failed expectations, as `electbench run` would.
func runScenarios(t *testing.T, name string, parallel int) (map[string][]reports.Row, []Failure, []byte) {
	return runScenariosUpTo(t, name, parallel, 0)
}

// runScenariosUpTo runs only the trials of at most maxNodes processes (all
// when 0): the default sweep's largest clusters are the CLI tests' job.
func runScenariosUpTo(t *testing.T, name string, parallel, maxNodes int) (map[string][]reports.Row, []Failure, []byte) {
	t.Helper()
	specs := builtinSpecs(t, name)
	var trials []Trial
	for _, s := range specs {
		for _, tr := range s.Plan() {
			if maxNodes == 0 || tr.Nodes <= maxNodes {
				trials = append(trials, tr)
			}
		}
	}
	rows := rowsOf(t, trials, parallel)
	by := map[string][]reports.Row{}
	for _, r := range rows {
		by[r.Scenario] = append(by[r.Scenario], r)
	}
	var buf bytes.Buffer
	if err := reports.WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	return by, CheckRun(specs, rows), buf.Bytes()
}

// builtinSpecs parses a built-in scenario file for the simulator. Every
// scenario runs on the simulator in these tests, live ones included: it
// tells the same story, and the live tests run the live runtime. A
// live-only algorithm (hashicorp-raft) is left out: the simulator refuses
// it, and its live test runs it.
func builtinSpecs(t *testing.T, name string) []*Spec {
	t.Helper()
	src, ok := chaos.Builtin(name)
	if !ok {
		t.Fatalf("no built-in %s", name)
	}
	scs, err := chaos.Parse(name+".yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	var specs []*Spec
	for _, sc := range scs {
		sc.Runtime = "sim"
		sc.Algorithms = slices.DeleteFunc(sc.Algorithms, func(a chaos.Algorithm) bool {
			alg, _, err := nodes.Lookup(a.Name)
			return err == nil && alg.LiveOnly != ""
		})
		if len(sc.Algorithms) == 0 && !sc.AllAlgos {
			continue // only live-only algorithms (lease-pause-k8s)
		}
		// Conditions on the columns of a live-only algorithm left out
		// (server-leader-crash's etcd-server) go with it.
		sc.Expect.Columns = slices.DeleteFunc(sc.Expect.Columns, func(c chaos.ColumnCondition) bool {
			return c.Algorithm != "" && !slices.ContainsFunc(sc.Algorithms, func(a chaos.Algorithm) bool { return a.Name == c.Algorithm })
		})
		spec, err := FromScenario(sc)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, spec)
	}
	return specs
}

// failuresBy groups failed expectations by scenario, algorithm and the
// expectation's first word (safety, liveness, messages, turnaround).
func failuresBy(fails []Failure) map[string]int {
	out := map[string]int{}
	for _, f := range fails {
		what, _, _ := strings.Cut(f.What, " ")
		out[f.Scenario+" "+f.Algorithm+" "+what]++
	}
	return out
}

// Each example of chaos/scenarios reproduces its story; the comment at the
// top of each file says what it demonstrates, and this test checks it.
func TestExampleScenarios(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		by, fails, _ := runScenariosUpTo(t, "default", 0, 32)
		if len(fails) != 0 {
			t.Fatalf("the default run fails expectations: %v", fails)
		}
		quorum, beliefs := 0, 0
		for _, r := range by["default-sweep"] {
			if !r.Correct || !r.Live || r.Faults != "" {
				t.Fatalf("sweep row not correct and live: %+v", r)
			}
			// Fault-free: nobody deposed, never two leaders, never
			// leaderless after the first (ALGORITHMS.md, "Disruption").
			if r.Terms.IsSet() != r.Disruptions.IsSet() {
				t.Fatalf("%s at N = %d: terms set %v, disruptions set %v", r.Algorithm, r.Nodes, r.Terms.IsSet(), r.Disruptions.IsSet())
			}
			if r.Disruptions.IsSet() {
				quorum++
				if r.Disruptions.Get() != 0 || r.StaleLeaderS.Get() != 0 || r.LeaderlessS.Get() != 0 || r.HealDisruptions.IsSet() {
					t.Errorf("%s/%s at N = %d, trial %d: disruptions %d, stale_leader_s %v, leaderless_s %v, heal_disruptions %+v without a fault",
						r.Algorithm, r.Variant, r.Nodes, r.Trial, r.Disruptions.Get(), r.StaleLeaderS.Get(), r.LeaderlessS.Get(), r.HealDisruptions)
				}
				continue
			}
			// The families without terms: never two processes that
			// decided themselves, never leaderless after the first
			// leader; elections counted for bully and multicast only
			// (ALGORITHMS.md, "Disruption", "Without terms").
			beliefs++
			counted := r.Algorithm == "bully" || r.Algorithm == "multicast"
			if !r.StaleLeaderS.IsSet() || !r.LeaderlessS.IsSet() || r.StaleLeaderS.Get() != 0 || r.LeaderlessS.Get() != 0 ||
				r.Elections.IsSet() != counted || counted && r.Elections.Get() < 1 || r.TermInflation.IsSet() {
				t.Errorf("%s/%s at N = %d, trial %d: stale_leader_s %+v, leaderless_s %+v, elections %+v, term_inflation %+v without a fault",
					r.Algorithm, r.Variant, r.Nodes, r.Trial, r.StaleLeaderS, r.LeaderlessS, r.Elections, r.TermInflation)
			}
		}
		if quorum == 0 {
			t.Fatal("the default sweep has no quorum trial")
		}
		if beliefs == 0 {
			t.Fatal("the default sweep has no ring, bully or multicast trial")
		}
		// One crash and one partition, with their resolved targets.
		for _, r := range by["default-faults"] {
			if !strings.Contains(r.Faults, ":crash(") || !strings.Contains(r.Faults, ":partition(isolate(lowest))[") ||
				!strings.Contains(r.Faults, "heal partition(isolate(lowest))") {
				t.Fatalf("%s: schedule %q", r.Algorithm, r.Faults)
			}
			// Every algorithm elects again after its leader crashed, hs
			// included (ring repair), before the partition.
			if !r.Correct || !r.Live {
				t.Errorf("%s: correct %v, live %v after the leader crashed", r.Algorithm, r.Correct, r.Live)
			}
		}
	})
	t.Run("ring-would-be-leader-crash", func(t *testing.T) {
		by, fails, _ := runScenarios(t, "ring-would-be-leader-crash", 0)
		got := failuresBy(fails)
		for _, a := range []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs"} {
			if got["ring-would-be-leader-crash "+a+" liveness"] != 3 {
				t.Errorf("%s: undetected crash did not lose liveness in every trial: %v", a, got)
			}
		}
		if len(fails) != 15 {
			t.Errorf("with repair something failed: %v", fails)
		}
		for _, r := range by["ring-would-be-leader-crash-repaired"] {
			if !r.Correct || !r.Live || r.Expect != "pass" {
				t.Errorf("repaired %s: %+v", r.Algorithm, r)
			}
		}
	})
	t.Run("ring-inaccurate-detector", func(t *testing.T) {
		by, fails, _ := runScenarios(t, "ring-inaccurate-detector", 0)
		if got := failuresBy(fails); len(fails) != 9 || got["ring-inaccurate-detector ring safety"] != 3 {
			t.Errorf("failures %v", got)
		}
		for _, r := range by["ring-inaccurate-detector"] {
			if !strings.HasPrefix(r.Violation, "wrong-leader") || r.SafetyViolations == 0 || !strings.Contains(r.Faults, ":suspect(") {
				t.Errorf("%s: %q %q", r.Algorithm, r.Violation, r.Faults)
			}
		}
	})
	t.Run("bully-short-t1", func(t *testing.T) {
		by, fails, _ := runScenarios(t, "bully-short-t1", 0)
		got := failuresBy(fails)
		if got["bully-short-t1 bully/classic safety"] != 3 || got["bully-short-t1 bully/two-phase safety"] != 3 || len(fails) != 6 {
			t.Errorf("failures %v", got)
		}
		for _, r := range by["bully-short-t1"] {
			if !strings.Contains(r.Violation, "decided 1 while") { // the lowest, the initiator
				t.Errorf("violation %q", r.Violation)
			}
		}
	})
	t.Run("halves-partition", func(t *testing.T) {
		by, fails, _ := runScenarios(t, "halves-partition", 0)
		if len(fails) != 9 {
			t.Errorf("failures %v", failuresBy(fails))
		}
		for _, r := range by["halves-partition"] {
			// Everyone decided, but not on one leader: two leaders.
			if !r.Live || r.Leader != "" || r.Correct || r.SafetyViolations == 0 {
				t.Errorf("%s: live %v leader %q correct %v", r.Algorithm, r.Live, r.Leader, r.Correct)
			}
		}
	})
	t.Run("paused-leader", func(t *testing.T) {
		by, fails, _ := runScenarios(t, "paused-leader", 0)
		if len(fails) != 3 {
			t.Errorf("failures %v", failuresBy(fails))
		}
		for _, r := range by["paused-leader"] {
			if !strings.Contains(r.Faults, ":pause(") || !strings.Contains(r.Faults, ":resume(") || !strings.HasPrefix(r.Violation, "wrong-leader") {
				t.Errorf("%q %q", r.Faults, r.Violation)
			}
		}
	})
	t.Run("clean-baseline", func(t *testing.T) {
		by, fails, _ := runScenarios(t, "clean-baseline", 0)
		if len(fails) != 0 {
			t.Fatalf("failures %v", fails)
		}
		for _, rows := range by {
			for _, r := range rows {
				if r.Expect != "pass" || !(r.TheoryMessages.IsSet() && r.TheoryMessages.Get() == r.Messages || r.TheoryBound.IsSet() && r.Messages <= r.TheoryBound.Get()) {
					t.Errorf("%s N=%d: %d messages, theory %v bound %v", r.Algorithm, r.Nodes, r.Messages, r.TheoryMessages, r.TheoryBound)
				}
			}
		}
	})
	t.Run("latency-sweep", func(t *testing.T) {
		by, fails, _ := runScenarios(t, "latency-sweep", 0)
		got := failuresBy(fails)
		for step := range 4 {
			name := fmt.Sprintf("latency-sweep-%d", step)
			if (got[name+" bully/classic safety"] > 0) != (step > 0) {
				t.Errorf("step %d: bully safety failures %d", step, got[name+" bully/classic safety"])
			}
			if (got[name+" chang-roberts turnaround"] > 0) != (step == 3) {
				t.Errorf("step %d: chang-roberts turnaround failures %d", step, got[name+" chang-roberts turnaround"])
			}
			for _, r := range by[name] {
				if r.Algorithm == "chang-roberts" && (!r.Correct || r.Messages != 23) {
					t.Errorf("step %d: chang-roberts %d messages, correct %v", step, r.Messages, r.Correct)
				}
			}
		}
		if got["latency-sweep-0 chang-roberts safety"]+got["latency-sweep-3 chang-roberts safety"] > 0 {
			t.Errorf("chang-roberts lost safety: %v", got)
		}
	})
}

// Every built-in scenario file validates and runs without a trial error
// (the stories above check their outcomes; other packages' files, such as
// the quorum ones, are checked by their packages).
func TestEveryBuiltinRuns(t *testing.T) {
	for _, name := range chaos.BuiltinNames() {
		switch name {
		case "default":
			continue // TestExampleScenarios runs it
		case "raft-figure16":
			continue // 14,100 trials: TestRaftFigure16Order runs 60 of each range
		}
		runScenariosUpTo(t, name, 0, 64)
	}
}

// The same scenario and seed give byte-identical rows, whatever the
// parallelism; the rows record the seed and the fault schedule applied.
func TestScenarioDeterminism(t *testing.T) {
	for _, name := range []string{"halves-partition", "latency-sweep", "paused-leader"} {
		_, _, a := runScenarios(t, name, 1)
		_, _, b := runScenarios(t, name, 4)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: two runs differ", name)
		}
	}
}

// A scenario with random faults: the seed decides which processes and
// messages, and another seed decides otherwise.
func TestScenarioSeedDecidesFaults(t *testing.T) {
	src := `
name: random-faults
algorithms: [bully, chang-roberts]
nodes: 8
trials: 4
network: {latency: "uniform(1ms,3ms)"}
faults:
  - {kind: crash, target: random(2), at: 3T, for: 10T}
  - {kind: loss, probability: 0.05, toxicity: 0.5}
  - {kind: reorder, probability: 0.2}
  - {kind: duplicate, probability: 0.1, from: random(3)}
`
	run := func(seed string) []byte {
		specs, err := ParseScenarios("r.yaml", []byte(src+"seed: "+seed+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		return runCSV(t, specs[0], 0)
	}
	a, b, c := run("1"), run("1"), run("2")
	if !bytes.Equal(a, b) || bytes.Equal(a, c) {
		t.Fatal("fault draws are not a function of the seed")
	}
	if !bytes.Contains(a, []byte(":crash(")) || !bytes.Contains(a, []byte(":restart(")) || !bytes.Contains(a, []byte(":loss[all]")) {
		t.Fatalf("schedule not recorded:\n%s", a)
	}
}

// A scenario of every kind the simulator applies runs, and its trace
// records the faults. (A cut between hosts, which it has none of, is the
// live harness's: TestNetnsHostPartition.)
func TestEveryKindInATrial(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: kinds\nalgorithms: [bully]\nnodes: 6\ntrials: 1\ndetector: heartbeat(1T,5T)\nfaults:\n")
	simulated := func(k *chaos.Kind) bool {
		if k.Link == nil {
			return true
		}
		_, lacks := sim.Capabilities.Lacks[k.Link.Name()]
		return !lacks
	}
	for _, k := range chaos.Kinds() {
		if !simulated(k) {
			continue
		}
		line := "  - {kind: " + k.Name + ", at: 2T"
		switch k.Class {
		case chaos.ProcessFault, chaos.DetectorFault:
			line += ", target: 1"
		case chaos.PartitionFault:
			line += ", shape: majorities-ring"
		}
		for _, p := range k.ParamDocs() {
			if p.Required {
				switch p.Type {
				case "duration":
					line += ", " + p.Name + ": 1T"
				case "probability":
					line += ", " + p.Name + ": 0.5"
				default:
					line += ", " + p.Name + ": 100"
				}
			}
		}
		if k.Heals != "" {
			line += ", for: 5T"
		}
		b.WriteString(line + "}\n")
	}
	specs, err := ParseScenarios("kinds.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	var trace bytes.Buffer
	row := RunSim(specs[0].Plan()[0], &trace)
	if row.Error != "" {
		t.Fatal(row.Error)
	}
	for _, k := range chaos.Kinds() {
		if simulated(k) && !strings.Contains(row.Faults, "t=2ms:"+k.Name) {
			t.Errorf("%s missing from the schedule %q", k.Name, row.Faults)
		}
	}
	if !strings.Contains(trace.String(), `"ev":"fault","what":"partition(majorities-ring)[ring(d=2)]"`) {
		t.Errorf("trace lacks the partition")
	}
}

// Expectations: per-trial verdicts, and percentiles over trials.
func TestExpectations(t *testing.T) {
	parse := func(expect string) chaos.Expect {
		scs, err := chaos.Parse("e.yaml", []byte("name: e\nalgorithms: [ring]\nexpect:\n"+expect))
		if err != nil {
			t.Fatal(err)
		}
		return scs[0].Expect
	}
	row := reports.Row{TS: 0.001, Live: true, Messages: 30, DecidedS: reports.Some(0.02), DecidedT: reports.Some(20.0)}
	for expect, want := range map[string]string{
		"  safety: always\n":             "pass",
		"  correct: always\n":            "fail: correct always: no common leader was decided",
		"  liveness: within 20T\n":       "pass",
		"  liveness: within 19ms\n":      "fail: liveness within 19ms: decided after 20ms (20T)",
		"  messages: at-most 30\n":       "pass",
		"  messages: at-most theory\n":   "fail: messages at-most theory = 29: sent 30",
		"  messages: at-most theory*2\n": "pass",
		"  turnaround: p50 < 5T\n":       "pass",
	} {
		if got := checkTrial(parse(expect), &row, nodesTheory(29)); got != want {
			t.Errorf("%s: %q, want %q", expect, got, want)
		}
	}
	bad := row
	bad.SafetyViolations, bad.Violation, bad.Live = 2, "wrong-leader at 1ms: x", false
	if got := checkTrial(parse("  safety: always\n  liveness: within 1s\n  messages: at-most theory\n"), &bad, nodesTheory(0)); got !=
		"fail: safety always: 2 violation(s), first wrong-leader at 1ms: x; liveness within 1s: not live (wrong-leader at 1ms: x); messages at-most theory: ALGORITHMS.md gives no figure for this configuration" {
		t.Errorf("combined: %q", got)
	}
	// Safe and live, every process believing a leader that crashed: only
	// correct sees it.
	stale := row
	stale.Leader, stale.Correct = "3", false
	if got := checkTrial(parse("  safety: always\n  correct: always\n  liveness: within 20T\n"), &stale, nodesTheory(0)); got !=
		"fail: correct always: every live process decided 3, not the rightful leader (it is down, or a live process outranks it)" {
		t.Errorf("stale leader: %q", got)
	}
	stale.Correct = true
	if got := checkTrial(parse("  correct: always\n"), &stale, nodesTheory(0)); got != "pass" {
		t.Errorf("correct trial: %q", got)
	}
	if checkTrial(chaos.Expect{}, &row, nodesTheory(0)) != "" {
		t.Error("no expectations, yet a verdict")
	}
	// p80 over five trials: the fourth fastest. One trial never finished.
	var rows []reports.Row
	for i, ta := range []float64{5, 1, 2, 4, -1} {
		r := reports.Row{Scenario: "e", Algorithm: "ring", Variant: "default", Nodes: 4, Trial: i, Seed: uint64(100 + i), TS: 0.001}
		if ta > 0 {
			r.TurnaroundS = reports.Some(ta / 1000)
		}
		rows = append(rows, r)
	}
	spec := &Spec{Scenario: "e", Expect: parse("  turnaround: p80 < 5T\n")}
	fails := CheckRun([]*Spec{spec}, rows)
	if len(fails) != 1 || fails[0].String() != "e: ring N=4 over 5 trials: turnaround p80 < 5T: p80 is 5ms (5T) (slowest: trial 4, seed 104)" {
		t.Errorf("p80: %v", fails)
	}
	spec.Expect = parse("  turnaround: p60 < 5T\n")
	if fails := CheckRun([]*Spec{spec}, rows); len(fails) != 0 {
		t.Errorf("p60: %v", fails)
	}
	spec.Expect = parse("  turnaround: p100 < 1s\n")
	if fails := CheckRun([]*Spec{spec}, rows); len(fails) != 1 || !strings.Contains(fails[0].What, "never finished") {
		t.Errorf("p100: %v", fails)
	}
	// A trial kept outside its model in every attempt counts in no
	// expectation, per trial or over trials: the one that never finished,
	// unjudged, fails p100 no longer, nor does its failed verdict.
	rows[4].Expect = reports.ExpectUnjudged + "fail: liveness within 1s: not live (no leader agreed)"
	if fails := CheckRun([]*Spec{spec}, rows); len(fails) != 0 {
		t.Errorf("p100 with the unfinished trial unjudged: %v", fails)
	}
	rows[4].Expect = "fail: liveness within 1s: not live (no leader agreed)"
	if fails := CheckRun([]*Spec{spec}, rows); len(fails) != 2 {
		t.Errorf("p100 with the unfinished trial judged and failed: %v, want its failure and p100's", fails)
	}
}

func nodesTheory(messages int64) nodes.Theory { return nodes.Theory{Messages: messages} }

// Conditions on columns: judged per algorithm, variant and size on the
// trials whose cell is set; a failure names the statistic, the median, the
// range and the extreme trials' seeds; the trials themselves pass.
func TestColumnExpectations(t *testing.T) {
	scs, err := chaos.Parse("c.yaml", []byte(`name: c
algorithms: [ring]
expect:
  columns:
    - {variant: plain, column: terms, median: ">=10"}
    - {variant: pre-vote, column: terms, median: "<=2", max: "<=2"}
    - {column: failover_t, min: ">0"}
`))
	if err != nil {
		t.Fatal(err)
	}
	expect := scs[0].Expect
	if got := checkTrial(expect, &reports.Row{TS: 0.001}, nodesTheory(0)); got != "pass" {
		t.Errorf("per trial: %q, want pass (judged over the trials)", got)
	}
	var rows []reports.Row
	for i, terms := range []int64{12, 9, 30, 11} {
		for _, v := range []string{"plain", "pre-vote"} {
			r := reports.Row{Scenario: "c", Algorithm: "etcd-raft", Variant: v, Nodes: 5, Trial: i, Seed: uint64(100 + i), Terms: reports.Some(terms)}
			if v == "pre-vote" {
				r.Terms = reports.Some(int64(1 + i%2*2)) // 1, 3, 1, 3
			}
			rows = append(rows, r)
		}
	}
	fails := CheckRun([]*Spec{{Scenario: "c", Expect: expect}}, rows)
	var got []string
	for _, f := range fails {
		got = append(got, f.String())
	}
	want := []string{
		// plain's median is (11+12)/2: it holds; failover_t is empty everywhere.
		"c: etcd-raft/plain N=5 over 4 trials: failover_t min >0: failover_t is empty in every trial",
		"c: etcd-raft/pre-vote N=5 over 4 trials: terms max <=2: the max is 3 (median 2, min 1 in trial 0 seed 100, max 3 in trial 1 seed 101, over 4 trials with a value)",
		"c: etcd-raft/pre-vote N=5 over 4 trials: failover_t min >0: failover_t is empty in every trial",
	}
	if !slices.Equal(got, want) {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range rows {
		if rows[i].Variant == "plain" {
			rows[i].Terms = reports.Some(int64(i)) // 0, 2, 4, 6: median 3
		}
	}
	fails = CheckRun([]*Spec{{Scenario: "c", Expect: expect}}, rows)
	if len(fails) == 0 || !strings.Contains(fails[0].What, "terms median >=10: the median is 3 ") {
		t.Errorf("plain's median 3 passed: %v", fails)
	}
}

// "all" runs each algorithm on the sizes it allows there (AllUpTo:
// etcd-raft up to 64); named, an algorithm runs at every size asked.
func TestAllRespectsAllUpTo(t *testing.T) {
	for _, tc := range []struct {
		algorithms string
		want       map[int]bool // etcd-raft's sizes in the plan
	}{
		{"all", map[int]bool{4: true, 64: true}},
		{"[etcd-raft, raft]", map[int]bool{4: true, 64: true, 128: true}},
	} {
		src := "name: t\nalgorithms: " + tc.algorithms + "\nnodes: [4, 64, 128]\ntrials: 1\n"
		specs, err := ParseScenariosOn("t.yaml", []byte(src), "sim")
		if err != nil {
			t.Fatal(err)
		}
		got, raft := map[int]bool{}, map[int]bool{}
		for _, tr := range specs[0].Plan() {
			switch tr.Algo.Alg.Name {
			case "etcd-raft":
				got[tr.Nodes] = true
			case "raft":
				raft[tr.Nodes] = true
			}
		}
		if !maps.Equal(got, tc.want) || len(raft) != 3 {
			t.Errorf("algorithms %s: etcd-raft on %v, raft on %v", tc.algorithms, got, raft)
		}
	}
}

// A scenario that expects trials without a leader (liveness: never, or
// at-least P% live) marks them so, fails a trial that breaks it, and
// judges the share over the trials.
func TestExpectedNotLive(t *testing.T) {
	parse := func(expect string) chaos.Expect {
		scs, err := chaos.Parse("e.yaml", []byte("name: e\nalgorithms: [raft]\nexpect:\n"+expect))
		if err != nil {
			t.Fatal(err)
		}
		return scs[0].Expect
	}
	live := reports.Row{Scenario: "e", Algorithm: "raft", Variant: "default", Nodes: 4, TS: 0.001, Live: true, Correct: true, Leader: "p3"}
	dead := live
	dead.Live, dead.Correct, dead.Leader = false, false, ""
	never := parse("  safety: always\n  liveness: never\n")
	if got := checkTrial(never, &dead, nodesTheory(0)); got != reports.ExpectNotLive {
		t.Errorf("never, not live: %q", got)
	}
	if got := checkTrial(never, &live, nodesTheory(0)); got != "fail: liveness never: the trial was live (leader p3)" {
		t.Errorf("never, live: %q", got)
	}
	share := parse("  liveness: at-least 60%\n")
	if got := checkTrial(share, &dead, nodesTheory(0)); got != reports.ExpectNotLive {
		t.Errorf("at-least, not live: %q", got)
	}
	if got := checkTrial(share, &live, nodesTheory(0)); got != "pass" {
		t.Errorf("at-least, live: %q", got)
	}
	rows := []reports.Row{live, live, live, dead, dead}
	for i := range rows {
		rows[i].Trial = i
	}
	if fails := CheckRun([]*Spec{{Scenario: "e", Expect: share}}, rows); len(fails) != 0 {
		t.Errorf("3 of 5 live meets at-least 60%%: %v", fails)
	}
	rows[2] = dead
	fails := CheckRun([]*Spec{{Scenario: "e", Expect: share}}, rows)
	if len(fails) != 1 || fails[0].String() != "e: raft N=4 over 5 trials: liveness at-least 60%: 2 of 5 trials live (40.0%)" {
		t.Errorf("2 of 5 live: %v", fails)
	}
	for _, bad := range []string{"  liveness: at-least 100%\n", "  liveness: at-least 80\n", "  liveness: never\n  correct: always\n"} {
		if _, err := chaos.Parse("e.yaml", []byte("name: e\nalgorithms: [raft]\nexpect:\n"+bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A jitter burst on a constant-latency ring, simulated: the queue's warm-up
// of the next events met a fault's payload, which holds no rank handle,
// and read the rank table past its end (a panic, the trial's error) once
// pending ranks became handles. The row is the live run's twin
// (TestLiveJitterBurst), 3N−1 messages, correct and live.
func TestSimJitterBurstRing(t *testing.T) {
	src := "name: burst\nalgorithms: [chang-roberts]\nnodes: 4\nids: ascending\ntrials: 1\nnetwork:\n  latency: 5ms\nfaults:\n  - {kind: jitter-burst, jitter: 8T, at: start, for: 200T}\n"
	specs, err := ParseScenarios("burst.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := RunSim(specs[0].Plan()[0], nil)
	if r.Error != "" || !r.Correct || !r.Live || r.Messages != 11 {
		t.Fatalf("error %q, correct %v, live %v, %d messages (3N−1 = 11)", r.Error, r.Correct, r.Live, r.Messages)
	}
}
