package workloads

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

func spec(t *testing.T, algos, nodesSpec, ids, initiators, latency string, trials int) *Spec {
	t.Helper()
	s := &Spec{Scenario: "test", Trials: trials, Seed: 42}
	for _, name := range strings.Split(algos, ",") {
		a, v, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		s.Algos = append(s.Algos, Algo{Alg: a, Variant: v})
	}
	var err error
	if s.Nodes, err = ParseNodes(nodesSpec); err != nil {
		t.Fatal(err)
	}
	if s.IDs, err = ParseIDs(ids); err != nil {
		t.Fatal(err)
	}
	if s.Initiators, err = ParseInitiators(initiators); err != nil {
		t.Fatal(err)
	}
	if s.Latency, err = trial.ParseLatency(latency); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

func runCSV(t *testing.T, s *Spec, parallel int) []byte {
	t.Helper()
	var rows []reports.Row
	err := (&Executor{Parallel: parallel}).Execute(context.Background(), s.Plan(), func(r reports.Row) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := reports.WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// docs/DESIGN.md ("Runtimes"): "The same seed gives byte-identical rows,
// whatever the parallelism."
func TestSameRowsWhateverTheParallelism(t *testing.T) {
	s := spec(t, "ring,chang-roberts,ring-initiator,lcr,hs", "3,8,21", "random", "random(3)", "exponential(1ms)", 4)
	one := runCSV(t, s, 1)
	for _, p := range []int{2, 8} {
		if got := runCSV(t, s, p); !bytes.Equal(one, got) {
			t.Fatalf("--parallel %d changed the results", p)
		}
	}
	if !bytes.Equal(one, runCSV(t, s, 1)) {
		t.Fatal("two runs of the same spec differ")
	}
	if strings.Count(string(one), "\n") != 1+5*3*4 {
		t.Fatalf("want %d rows", 5*3*4)
	}
}

func TestRowsComeInPlanOrderAndSkipWorks(t *testing.T) {
	s := spec(t, "lcr,hs", "4,16", "ascending", "all", "1ms", 3)
	plan := s.Plan()
	var got []int
	skip := func(tr Trial) bool { return tr.Index%4 == 1 }
	err := (&Executor{Parallel: 4, Skip: skip}).Execute(context.Background(), plan, func(r reports.Row) error {
		for _, tr := range plan {
			if tr.BaseRow().Key() == r.Key() {
				got = append(got, tr.Index)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, tr := range plan {
		if !skip(tr) {
			want = append(want, tr.Index)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("emitted %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("emitted %v, want %v", got, want)
		}
	}
}

func TestCancelledRunKeepsAPrefix(t *testing.T) {
	s := spec(t, "lcr", "64", "random", "all", "1ms", 200)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := (&Executor{Parallel: 2}).Execute(ctx, s.Plan(), func(r reports.Row) error {
		if r.Trial != n {
			t.Fatalf("row for trial %d after %d rows", r.Trial, n)
		}
		n++
		if n == 5 {
			cancel()
		}
		return nil
	})
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n < 5 || n == 200 {
		t.Fatalf("emitted %d rows", n)
	}
}

// panicky is an algorithm with a bug: the runner must turn it into an error
// row, not lose the run.
type panicky struct{}

func (panicky) Start(nodes.Env)                                {}
func (panicky) Initiate(nodes.Env)                             { panic("boom") }
func (panicky) Receive(nodes.Env, nodes.PeerID, nodes.Message) {}
func (panicky) Timeout(nodes.Env, nodes.TimerID)               {}
func (panicky) Suspect(nodes.Env, nodes.PeerID)                {}

func TestPanickingAlgorithmBecomesAnErrorRow(t *testing.T) {
	s := spec(t, "ring", "4", "ascending", "max", "1ms", 1)
	s.Algos[0] = Algo{Alg: &nodes.Algorithm{Name: "panicky", Topology: nodes.RingUni, Variants: []nodes.Variant{{Name: "default"}},
		New: func(nodes.Config) (func() nodes.Machine, error) {
			return func() nodes.Machine { return panicky{} }, nil
		}}, Variant: "default"}
	row := RunSim(s.Plan()[0], nil)
	if !strings.Contains(row.Error, "panic: boom") || row.Correct || row.Live {
		t.Fatalf("row = %+v", row)
	}
}

// An executor without a live runtime, handed a live scenario's trials,
// runs nothing and says so, rather than emitting simulated rows for a live
// run.
func TestRunRefusesLiveTrials(t *testing.T) {
	s := spec(t, "chang-roberts", "4", "random", "lowest", "2ms", 2)
	s.Runtime = "live"
	emitted := 0
	err := (&Executor{Parallel: 1}).Execute(context.Background(), s.Plan(), func(reports.Row) error { emitted++; return nil })
	if err == nil || !strings.Contains(err.Error(), "no live runtime") || emitted != 0 {
		t.Fatalf("a live spec: err %v, %d rows emitted; want an error saying there is no live runtime and no row", err, emitted)
	}
	s.Runtime = "sim"
	if err := (&Executor{Parallel: 1}).Execute(context.Background(), s.Plan(), func(reports.Row) error { emitted++; return nil }); err != nil || emitted != 2 {
		t.Fatalf("a sim spec: err %v, %d rows", err, emitted)
	}
}

// Issue 21: a trial that exceeds --max-events is recorded as not live with
// the reason (error and budget columns) and the figures it reached, and the
// run goes on: the cheap algorithm's trials after it run in full. The
// runaway is bully under jitter with the textbook rule (settle=0, T1 = 2T),
// whose cascade grows as N⁴.
func TestBudgetStopsTrialRunGoesOn(t *testing.T) {
	s := spec(t, "bully,chang-roberts", "32", "random", "lowest", "uniform(1ms,5ms)", 2)
	s.Algos[0].Params = nodes.Params{"t1": "2T", "settle": "0"}
	s.Budget = trial.Budget{MaxEvents: 20000}
	var rows []reports.Row
	if err := (&Executor{Parallel: 2}).Execute(context.Background(), s.Plan(), func(r reports.Row) error {
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	for _, r := range rows[:2] {
		if r.Live || r.Correct || r.Budget != trial.BudgetEvents || r.Events != 20000 || r.Messages < 20000 ||
			!strings.HasPrefix(r.Error, "budget: stopped at ") || !strings.Contains(r.Error, "--max-events") {
			t.Errorf("bully trial %d: live %v correct %v budget %q events %d messages %d error %q", r.Trial, r.Live, r.Correct, r.Budget, r.Events, r.Messages, r.Error)
		}
	}
	for _, r := range rows[2:] {
		if !r.Live || !r.Correct || r.Budget != "" || r.Error != "" || !r.TheoryMessages.IsSet() || r.Messages != r.TheoryMessages.Get() {
			t.Errorf("chang-roberts trial %d after the stopped ones: live %v correct %v budget %q messages %d error %q", r.Trial, r.Live, r.Correct, r.Budget, r.Messages, r.Error)
		}
	}
	if got := reports.TallyOf(rows).BudgetHits; got != 2 {
		t.Errorf("BudgetHits = %d, want 2", got)
	}
}

// Issue 21's first sweep at a smaller N: every algorithm under
// uniform(1ms,5ms), seed 9. It comes to an end without any budget, every
// trial is live, bully costs O(N²) rather than the textbook rule's Θ(N⁴),
// and --parallel 1 and 2 give byte-identical rows.
func TestJitterSweepBoundedAndDeterministic(t *testing.T) {
	names := slices.DeleteFunc(nodes.Names(), func(name string) bool {
		a, _, _ := nodes.Lookup(name)
		return a.LiveOnly != "" // the simulator refuses it
	})
	s := spec(t, strings.Join(names, ","), "4..32", "random", "lowest", "uniform(1ms,5ms)", 3)
	s.Seed = 9
	one := runCSV(t, s, 1)
	if two := runCSV(t, s, 2); !bytes.Equal(one, two) {
		t.Fatal("--parallel 2 changed the rows")
	}
	rows, err := reports.ReadCSV(bytes.NewReader(one))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(names)*4*3 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if !r.Live || r.Error != "" || r.Budget != "" || r.DS != 0.005 {
			t.Errorf("%s N=%d trial %d: live %v, error %q, budget %q, d_s %v", r.Algorithm, r.Nodes, r.Trial, r.Live, r.Error, r.Budget, r.DS)
		}
		if n := int64(r.Nodes); r.Algorithm == "bully" && r.Messages > 3*n*n {
			t.Errorf("bully N=%d trial %d: %d messages, want O(N²) (≤ 3N² = %d)", n, r.Trial, r.Messages, 3*n*n)
		}
	}
}
