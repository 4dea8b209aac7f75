package workloads

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// TestETAFromCost: trials of growing size (a sweep over N), each taking
// time in proportion to the events it processes, give an exact ETA from
// the first finished trial on, even with estimates off by a constant factor
// (here the runs process a third of the estimate); counting trials would
// predict a tenth of the time left. Live trials after the simulated ones
// take their own rate.
func TestETAFromCost(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newETA(t.Context(), start, nil, nil)
	row := func(i int) reports.Row { return reports.Row{Algorithm: "lcr", Nodes: 1 << i, Events: int64(1000 << i)} }
	var total float64 // actual events and set-ups, at 1 µs each
	for i := range 10 {
		e.addSim(row(i).Algorithm, float64(int64(3000)<<i))
		total += float64(int64(1000)<<i) + simOverhead
	}
	if _, ok := e.Remaining(time.Now()); ok {
		t.Fatal("an ETA before any trial finished")
	}
	now, spent := start, 0.0
	for i := range 9 {
		c := float64(int64(1000)<<i) + simOverhead
		spent += c
		now = now.Add(time.Duration(c * float64(time.Microsecond)))
		e.finished(row(i), now)
		got, ok := e.Remaining(time.Now())
		want := time.Duration((total - spent) * float64(time.Microsecond))
		if !ok || got < want-time.Millisecond || got > want+time.Millisecond {
			t.Fatalf("after %d trials: %v left, want %v", i+1, got, want)
		}
	}
	// A live trial is still to come: its prior rate.
	e.addLive(2e6)
	got, _ := e.Remaining(time.Now())
	if want := time.Duration((total-spent)*float64(time.Microsecond)) + 2*time.Second; got < want-time.Millisecond || got > want+time.Millisecond {
		t.Fatalf("with a live trial to come: %v, want %v", got, want)
	}
}

// TestETAStable replays, with this machine class's measured figures, the
// sweep `--algo all --nodes 4..1024 --trials 20 --latency
// 'uniform(1ms,5ms)'`: the algorithms in plan order, each trial's events
// its estimate times the algorithm's measured bias (processed/estimated at
// N = 256, 3 trials each) times a seed's noise (a factor of up to nine:
// random latency, trials a budget stops), each event costing the
// algorithm's measured time (0.4–1 µs; ring algorithms' trials are mostly
// set-up). Past the first 5% of the run the ETA stays within a factor of
// two of the time actually left: it averages over an algorithm's finished
// trials rather than following the latest one, which swung the real
// sweep's ETA between 14 and 42 minutes.
func TestETAStable(t *testing.T) {
	type alg struct {
		name     string
		perEvent float64                 // µs, measured
		bias     float64                 // events processed per event estimated, measured
		est      func(n float64) float64 // the plan's estimate (Trial.Cost)
	}
	ring := func(n float64) float64 { return 3 * n }
	complete := func(n float64) float64 { return 2 * n * n }
	quorum := func(period float64) func(n float64) float64 { // period in T; the default deadline
		return func(n float64) float64 { return n*n + 3.4*n*(100*n+1000)/period }
	}
	algs := []alg{
		{"bully", 0.97, 0.95, complete}, {"chang-roberts", 1, 1, ring}, {"chubby", 0.76, 1.2, quorum(30)},
		{"hs", 0.51, 1, ring}, {"lcr", 1, 1, ring}, {"multicast", 1.04, 1, complete},
		{"raft", 0.64, 0.82, quorum(20.0 / 3)}, {"ring", 1, 1, ring}, {"ring-initiator", 1, 1, ring},
		{"zookeeper", 0.40, 1.17, quorum(4)},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	type trial struct {
		row  reports.Row
		est  float64
		cost float64 // µs
	}
	var plan []trial
	var total float64
	for _, a := range algs {
		for n := 4; n <= 1024; n *= 2 {
			for i := range 20 {
				est := a.est(float64(n))
				ev := est * a.bias * []float64{0.2, 1, 1.8}[rng.IntN(3)]
				c := (ev + simOverhead) * a.perEvent
				plan = append(plan, trial{reports.Row{Algorithm: a.name, Nodes: n, Trial: i, Events: int64(ev)}, est, c})
				total += c
			}
		}
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newETA(t.Context(), start, nil, nil)
	for _, tr := range plan {
		e.addSim(tr.row.Algorithm, tr.est)
	}
	now, spent := start, 0.0
	worst, where := 1.0, ""
	for _, tr := range plan {
		spent += tr.cost
		now = now.Add(time.Duration(tr.cost * float64(time.Microsecond)))
		e.finished(tr.row, now)
		got, ok := e.Remaining(time.Now())
		left := total - spent
		if !ok || spent < total/20 || left < total/100 {
			continue
		}
		r := got.Seconds() * 1e6 / left
		if max(r, 1/r) > worst {
			worst = max(r, 1/r)
			where = fmt.Sprintf("%s n=%d, %.0f%% done", tr.row.Algorithm, tr.row.Nodes, 100*spent/total)
		}
		if r > 2 || r < 0.5 {
			t.Fatalf("%s n=%d trial %d, %.0f%% of the run done: %v left predicted, %v actually",
				tr.row.Algorithm, tr.row.Nodes, tr.row.Trial, 100*spent/total, got, time.Duration(left*float64(time.Microsecond)))
		}
	}
	t.Logf("the ETA was at worst %.2f× off past the first 5%% (%s)", worst, where)
}

// A run of live trials only has an ETA from its first trial on: the prior
// cost of a live trial (Trial.Cost, in µs) before any finishes.
func TestETALiveOnly(t *testing.T) {
	// At the run's start (a fixed instant: read later, the countdown
	// below would have begun).
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newETA(t.Context(), start, nil, nil)
	e.addLive(14.8e6)
	got, ok := e.Remaining(start)
	if !ok || got.Round(time.Millisecond) != 14800*time.Millisecond {
		t.Fatalf("before any live trial finished: %v, %v; want 14.8s from the prior", got, ok)
	}
	// The ETA counts down while the trial runs, and once the running
	// trial outruns its share, what is left is the trials after it.
	e = newETA(t.Context(), start, nil, nil)
	e.addLive(14.8e6)
	e.addLive(14.8e6)
	for _, tc := range []struct{ at, want time.Duration }{
		{5 * time.Second, 24600 * time.Millisecond}, {14800 * time.Millisecond, 14800 * time.Millisecond}, {time.Minute, 14800 * time.Millisecond},
	} {
		if got, ok := e.Remaining(start.Add(tc.at)); !ok || got.Round(time.Millisecond) != tc.want {
			t.Errorf("%v into the first trial: %v (%v) left, want %v", tc.at, got, ok, tc.want)
		}
	}
	// The first took 20 s: the second is priced at that, from its start.
	e.finished(reports.Row{Algorithm: "raft", Nodes: 64, Runtime: "live", Trial: 0}, start.Add(20*time.Second))
	if got, _ := e.Remaining(start.Add(25 * time.Second)); got.Round(time.Millisecond) != 15*time.Second {
		t.Errorf("5 s into the second trial: %v left, want 15s", got)
	}
}

// A run of one long simulated trial has an ETA while it runs: from the
// events it has processed so far (Observer.Begin) against its
// estimate, at the rate it processed them; once a trial has finished, what
// the running ones did already is taken off what is left.
func TestETAWithinATrial(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newETA(t.Context(), start, nil, nil)
	e.processed = new(atomic.Int64)
	e.addSim("chang-roberts", 3e7)
	if _, ok := e.Remaining(start.Add(time.Second)); ok {
		t.Fatal("an ETA before any event was processed")
	}
	for _, tc := range []struct {
		at        time.Duration
		processed int64
		want      time.Duration
	}{{time.Second, 3e6, 9 * time.Second}, {5 * time.Second, 15e6, 5 * time.Second}, {9 * time.Second, 27e6, time.Second}} {
		e.processed.Store(tc.processed)
		if got, ok := e.Remaining(start.Add(tc.at)); !ok || got.Round(time.Millisecond) != tc.want {
			t.Errorf("%v in, %d events processed: %v (%v) left, want %v", tc.at, tc.processed, got, ok, tc.want)
		}
	}
	// Two trials of 1e6 events: the first took 1 s; the second has done
	// half of its events, so half a second is left.
	e = newETA(t.Context(), start, nil, nil)
	e.processed = new(atomic.Int64)
	for range 2 {
		e.addSim("lcr", 1e6)
	}
	e.finished(reports.Row{Algorithm: "lcr", Nodes: 1000, Trial: 0, Events: 1e6 - simOverhead}, start.Add(time.Second))
	e.processed.Store(5e5)
	if got, ok := e.Remaining(start.Add(1500 * time.Millisecond)); !ok || got.Round(time.Millisecond) != 500*time.Millisecond {
		t.Errorf("half of the second trial done: %v (%v) left, want 500ms", got, ok)
	}
}

// A live trial after a trial of its size that keeps its processes is priced
// without the cluster's start (the harness runs it on the kept processes);
// after a crash, or at a new size, it pays for a new cluster.
func TestETAKeptProcesses(t *testing.T) {
	alg, variant, err := nodes.Lookup("raft")
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := ParseIDs("random")
	inits, _ := ParseInitiators("all")
	spec := func(sizes ...int) *Spec {
		s := &Spec{Scenario: "test", Algos: []Algo{{Alg: alg, Variant: variant}}, Nodes: sizes,
			IDs: ids, Initiators: inits, Trials: 2, Seed: 1, Latency: trial.Constant(time.Millisecond)}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	clean := spec(8, 16).Plan()
	crash, err := ParseCrash("highest")
	if err != nil {
		t.Fatal(err)
	}
	crashing := spec(8)
	crashing.Crashes = []CrashSpec{crash}
	cases := []struct {
		name  string
		plan  []Trial
		setup []bool // whether each trial pays for a new cluster
	}{
		{"clean, two sizes", clean, []bool{true, false, true, false}},
		{"a crash in every trial", crashing.Plan(), []bool{true, true}},
	}
	for _, c := range cases {
		e := newETA(t.Context(), time.Now(), asLive(c.plan), nil)
		for i, tr := range c.plan {
			want := tr.Cost(true)
			if !c.setup[i] {
				want -= tr.LiveSetupCost()
			}
			if got := e.liveNext[i]; got != want || tr.LiveSetupCost() <= 0 {
				t.Errorf("%s: trial %d (N=%d) priced %v, want %v", c.name, i, tr.Nodes, got, want)
			}
		}
		// Costs priced already (a sharded run prices them to split the
		// plan) are used as they are: under a context already done, which
		// prices a live run at nothing, the ETA holds the same figures.
		done, cancel := context.WithCancel(t.Context())
		cancel()
		again := newETA(done, time.Now(), asLive(c.plan), Costs(t.Context(), c.plan, true))
		if !slices.Equal(again.liveNext, e.liveNext) {
			t.Errorf("%s: with the costs given, priced %v; want %v", c.name, again.liveNext, e.liveNext)
		}
	}
}

// A live token ring runs to its deadline: after two short chang-roberts
// trials finish as priced, the ETA holds the token ring's deadline
// (15 s at N = 5, T = 10 ms), not a second or so as every non-quorum
// trial was priced before.
func TestETALiveTokenRing(t *testing.T) {
	ids, _ := ParseIDs("random")
	inits, _ := ParseInitiators("all")
	var algos []Algo
	for _, name := range []string{"chang-roberts", "token-ring"} {
		a, v, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		algos = append(algos, Algo{Alg: a, Variant: v})
	}
	s := &Spec{Scenario: "test", Algos: algos, Nodes: []int{5}, IDs: ids, Initiators: inits, Trials: 2, Seed: 1, Latency: trial.Constant(10 * time.Millisecond)}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	plan := s.Plan()
	start := time.Now()
	e := newETA(t.Context(), start, asLive(plan), nil)
	now := start
	for i := range 2 {
		now = now.Add(time.Duration(e.liveNext[0] * float64(time.Microsecond)))
		e.finished(plan[i].LiveBaseRow(), now)
	}
	deadline := trial.DefaultDeadline(5, 10*time.Millisecond)
	if d, ok := e.Remaining(now); !ok || d < 2*deadline || d > 3*deadline {
		t.Errorf("after the chang-roberts trials: %v left (known %v), want two token rings' deadlines, %v each, and a little", d, ok, deadline)
	}
}

// Kept processes hold the last trial's links only: a complete graph after
// a ring of its size pays for the links the ring lacked, a ring after a
// complete graph for none.
func TestETAKeptLinks(t *testing.T) {
	ids, _ := ParseIDs("random")
	inits, _ := ParseInitiators("lowest")
	var algos []Algo
	for _, name := range []string{"chang-roberts", "raft", "lcr"} {
		a, v, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		algos = append(algos, Algo{Alg: a, Variant: v})
	}
	s := &Spec{Scenario: "test", Algos: algos, Nodes: []int{16}, IDs: ids, Initiators: inits, Trials: 1, Seed: 1, Latency: trial.Constant(time.Millisecond)}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	plan := s.Plan()
	costs := Costs(t.Context(), plan, true)
	e := newETA(t.Context(), time.Now(), asLive(plan), nil)
	link := 1.2e3 // µs a link, Trial.LiveSetupCost
	want := []float64{costs[0], costs[1] - plan[1].LiveSetupCost() + link*(16*15-16), costs[2] - plan[2].LiveSetupCost()}
	for i := range plan {
		if got := e.liveNext[i]; math.Abs(got-want[i]) > 1e-6 {
			t.Errorf("trial %d (%s): priced %v, want %v", i, plan[i].Algo.Alg.Name, got, want[i])
		}
	}
}

// EstimatePlan works out a configuration's estimate once for its trials
// and keeps only the largest trials' memory: its figures are those of
// every trial estimated on its own, the parallel largest summed.
func TestEstimatePlanByConfiguration(t *testing.T) {
	var plan []Trial
	small := spec(t, "chang-roberts,bully", "4,16", "random", "lowest", "uniform(1ms,5ms)", 3)
	big := spec(t, "bully,lcr", "64,8", "random", "lowest", "1ms", 2)
	for _, tr := range slices.Concat(small.Plan(), big.Plan(), small.Plan()[:2]) {
		tr.Index = len(plan)
		plan = append(plan, tr)
	}
	for _, parallel := range []int{1, 2, 3, 100} {
		var want PlanCost
		var simSeconds float64
		var mems []float64
		for _, tr := range plan {
			e := tr.Estimate()
			want.Trials++
			want.Events += e.Events
			want.TraceBytes += traceBytesPerEvent * e.Events
			simSeconds += (e.Events + simOverhead) * priorSecondsPerEvent
			mems = append(mems, e.Memory)
		}
		slices.Sort(mems)
		slices.Reverse(mems)
		for _, m := range mems[:min(parallel, len(mems))] {
			want.PeakMemory += m
		}
		want.Wall = time.Duration(simSeconds / float64(min(parallel, len(plan))) * float64(time.Second))
		if got := EstimatePlan(t.Context(), plan, parallel); got != want {
			t.Errorf("parallel %d: %+v, want %+v", parallel, got, want)
		}
	}
}

// The ETA holds a simulated configuration's estimates once, however many
// trials it runs (a 470,000-trial run held a number a trial, issue 39),
// and hands them out in plan order as the trials finish: each trial's is
// its configuration's price (Costs), and nothing is left once all have.
func TestETAEstimatesPerConfiguration(t *testing.T) {
	alg, variant, err := nodes.Lookup("chang-roberts")
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := ParseIDs("random")
	inits, _ := ParseInitiators("all")
	s := &Spec{Scenario: "test", Algos: []Algo{{Alg: alg, Variant: variant}}, Nodes: []int{5, 50},
		IDs: ids, Initiators: inits, Trials: 1000, Seed: 1, Latency: trial.Constant(time.Millisecond)}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	plan := s.Plan()
	e := newETA(t.Context(), time.Now(), plan, nil)
	if len(e.simNext) != 2 {
		t.Fatalf("%d runs of estimates for 2 configurations of 1000 trials", len(e.simNext))
	}
	q := slices.Clone(e.simNext)
	for i, est := range Costs(t.Context(), plan, false) {
		if got := nextSim(&q); got != est {
			t.Fatalf("trial %d: estimate %v, want its own %v", i, got, est)
		}
		e.finished(reports.Row{Algorithm: "chang-roberts", Events: 1}, time.Now())
	}
	a := e.alg["chang-roberts"]
	if len(e.simNext) != 0 || a.count != 0 {
		t.Fatalf("after every trial: %d runs of estimates, %d trials left", len(e.simNext), a.count)
	}
}
