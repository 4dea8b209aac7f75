package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/livetest"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/pow"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// Off a terminal: nothing for a short run, then a line at most every 10s.
func TestLogProgress(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newETA(t.Context(), now, nil, nil)
	for i := range 100 {
		e.addSim(reports.Row{Algorithm: "lcr", Trial: i}.Key(), 1000)
	}
	l := &logProgress{w: &b, total: 100, start: now, last: now, every: logEvery, now: func() time.Time { return now }, eta: e}
	for i := range 100 {
		now = now.Add(time.Second)
		r := reports.Row{Algorithm: "lcr", Trial: i, Events: 1000, Correct: true, Live: true}
		if i == 3 {
			r.Correct = false
		}
		l.Done(r)
	}
	l.Close()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines for 100s at one line per 10s:\n%s", len(lines), b.String())
	}
	if lines[0] != "progress: 10/100 trials (10%), 1 failing, 10s elapsed, about 1m30s left" {
		t.Errorf("first line %q", lines[0])
	}
	// Not a terminal: a bytes.Buffer gets the plain lines.
	if _, ok := newProgress(&b, 5, e).(*logProgress); !ok {
		t.Error("a buffer got bars")
	}
}

// Off a terminal, a live trial's set-up longer than the interval gets its
// lines, saying which trial and where it is; a shorter one does not, nor
// does its end (running: the trial's row tells it).
func TestLogProgressSetup(t *testing.T) {
	var b bytes.Buffer
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	e := newETA(t.Context(), now, nil, nil)
	raft := reports.Row{Algorithm: "raft", Nodes: 64, Runtime: "live", Correct: true, Live: true}
	for i := range 2 {
		raft.Trial = i
		e.addLive(raft.Key(), 1.64e6)
	}
	l := &logProgress{w: &b, total: 2, start: now, last: now, every: logEvery, now: func() time.Time { return now }, eta: e}
	s := harness.Setup{Trial: 1, Algorithm: "raft", Variant: "default", Nodes: 64}
	trial, began := 0, time.Duration(0) // the trial setting up, from when
	at := func(d time.Duration, stage harness.Stage, done, total int) {
		now = start.Add(d)
		s.Stage, s.Done, s.Total, s.Elapsed = stage, done, total, d-began
		l.Setup(s, trial)
	}
	// Trial 0: 3 s of set-up, 5 s of running.
	at(0, harness.Starting, 0, 64)
	at(time.Second, harness.Starting, 64, 64)
	at(2*time.Second, harness.Linking, 4032, 4032)
	at(3*time.Second, harness.Running, 0, 0)
	if b.Len() != 0 {
		t.Fatalf("a set-up of 3s wrote %q", b.String())
	}
	// Trial 1 sets up for 16 s from 8 s on; the proxies were kept.
	now = start.Add(8 * time.Second)
	raft.Trial = 0
	l.Done(raft)
	s.Trial, s.Made, s.Kept = 2, 0, 4032
	trial, began = 1, 8*time.Second
	for d := time.Duration(0); d <= 16*time.Second; d += 500 * time.Millisecond {
		switch {
		case d < 4*time.Second:
			at(8*time.Second+d, harness.Starting, int(d/(time.Second/16)), 64)
		case d < 5*time.Second:
			at(8*time.Second+d, harness.Proxying, 4032, 4032)
		default:
			at(8*time.Second+d, harness.Linking, int(4032*(d-5*time.Second)/(11*time.Second)), 4032)
		}
	}
	at(24*time.Second, harness.Running, 0, 0)
	// Trial 0 took 8 s, so trial 1 is priced at 8 s: 6 s left 2 s into
	// it; 12 s into it, it is overdue by a time nobody knows.
	want := []string{
		"progress: 1/2 trials (50%), 0 failing, 10s elapsed, about 6s left; setting up raft n=64 trial 1: starting processes 32/64 (2s so far)",
		"progress: 1/2 trials (50%), 0 failing, 20s elapsed, about ? left; setting up raft n=64 trial 1: linking 2,565/4,032 (12s so far)",
	}
	if got := strings.TrimSpace(b.String()); got != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// What a set-up line says at each stage.
func TestSetupLine(t *testing.T) {
	s := harness.Setup{Algorithm: "raft", Nodes: 64, Made: 4032, Total: 4032}
	for _, tc := range []struct {
		stage       harness.Stage
		done, trial int
		want        string
	}{
		{harness.Starting, 12, 3, "raft n=64 trial 3: starting processes 12/4,032"},
		{harness.Proxying, 0, 3, "raft n=64 trial 3: proxies (making 4,032, kept 0)"},
		{harness.Proxying, 4032, 3, "raft n=64 trial 3: proxies ready (made 4,032, kept 0)"},
		{harness.Linking, 2100, 3, "raft n=64 trial 3: linking 2,100/4,032"},
		{harness.Running, 0, 3, "raft n=64 trial 3: running"},
		{harness.Running, 0, -1, "raft n=64: running"},
	} {
		s.Stage, s.Done = tc.stage, tc.done
		if got := setupLine(s, tc.trial); got != tc.want {
			t.Errorf("%v %d: %q, want %q", tc.stage, tc.done, got, tc.want)
		}
	}
}

// The bars draw to any writer and finish, whether the run completed or
// was interrupted.
func TestBarProgress(t *testing.T) {
	for _, n := range []int{3, 1} {
		var b bytes.Buffer
		p := newBarProgress(&b, 3, newETA(t.Context(), time.Now(), nil, nil))
		for range n {
			p.Done(reports.Row{Algorithm: "lcr", Nodes: 8, Correct: true, Live: true})
		}
		p.Close()
		if !strings.Contains(b.String(), "trials") || !strings.Contains(b.String(), "lcr n=8") {
			t.Errorf("%d of 3 done: bar output %q", n, b.String())
		}
	}
	// A live trial's set-up shows in place of the configuration.
	var b bytes.Buffer
	p := newBarProgress(&b, 1, newETA(t.Context(), time.Now(), nil, nil))
	p.Setup(harness.Setup{Algorithm: "raft", Nodes: 64, Stage: harness.Linking, Done: 2100, Total: 4032}, 3)
	p.mu.Lock()
	current := p.current
	p.mu.Unlock()
	p.Close()
	// (Off a terminal mpb draws in its bar's width: the label is cut.)
	if current != "raft n=64 trial 3: linking 2,100/4,032" || !strings.Contains(b.String(), "raft n=64") {
		t.Errorf("set-up shown as %q; bar output %q", current, b.String())
	}
}

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
		e.addSim(row(i).Key(), float64(int64(3000)<<i))
		total += float64(int64(1000)<<i) + simOverhead
	}
	if _, ok := e.remaining(); ok {
		t.Fatal("an ETA before any trial finished")
	}
	now, spent := start, 0.0
	for i := range 9 {
		c := float64(int64(1000)<<i) + simOverhead
		spent += c
		now = now.Add(time.Duration(c * float64(time.Microsecond)))
		e.finished(row(i), now)
		got, ok := e.remaining()
		want := time.Duration((total - spent) * float64(time.Microsecond))
		if !ok || got < want-time.Millisecond || got > want+time.Millisecond {
			t.Fatalf("after %d trials: %v left, want %v", i+1, got, want)
		}
	}
	// A live trial is still to come: its prior rate.
	live := reports.Row{Algorithm: "raft", Nodes: 5, Runtime: "live"}
	e.addLive(live.Key(), 2e6)
	got, _ := e.remaining()
	if want := time.Duration((total-spent)*float64(time.Microsecond)) + 2*time.Second; got < want-time.Millisecond || got > want+time.Millisecond {
		t.Fatalf("with a live trial to come: %v, want %v", got, want)
	}
}

// TestMintProgress: off a terminal, a line every logEvery with the work
// expected of one identity and, after the first, the time left; the last
// identity always gets its line.
func TestMintProgress(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f := mintProgress(&b, pow.Params{Bits: 17, DynBits: 4}, func() time.Time { return now }, false)
	for i := 1; i <= 40; i++ {
		now = now.Add(time.Second)
		f(i, 40)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"identities: 10/40 minted (2^17 key pairs and 2^4 nonces each on average), 10s elapsed",
		"identities: 20/40 minted (2^17 key pairs and 2^4 nonces each on average), 20s elapsed, about 20s left",
		"identities: 30/40 minted (2^17 key pairs and 2^4 nonces each on average), 30s elapsed, about 10s left",
		"identities: 40/40 minted (2^17 key pairs and 2^4 nonces each on average), 40s elapsed",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", b.String(), strings.Join(want, "\n"))
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
		est      func(n float64) float64 // the plan's estimate (workloads.Trial.Cost)
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
		e.addSim(tr.row.Key(), tr.est)
	}
	now, spent := start, 0.0
	worst, where := 1.0, ""
	for _, tr := range plan {
		spent += tr.cost
		now = now.Add(time.Duration(tr.cost * float64(time.Microsecond)))
		e.finished(tr.row, now)
		got, ok := e.remaining()
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
// cost of a live trial (workloads.Trial.Cost, in µs) before any finishes.
func TestETALiveOnly(t *testing.T) {
	// At the run's start (a fixed instant: read later, the countdown
	// below would have begun).
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newETA(t.Context(), start, nil, nil)
	e.addLive(reports.Row{Algorithm: "raft", Nodes: 64, Runtime: "live"}.Key(), 14.8e6)
	got, ok := e.remainingAt(start)
	if !ok || got.Round(time.Millisecond) != 14800*time.Millisecond {
		t.Fatalf("before any live trial finished: %v, %v; want 14.8s from the prior", got, ok)
	}
	// The ETA counts down while the trial runs, and once the running
	// trial outruns its share, what is left is the trials after it.
	e = newETA(t.Context(), start, nil, nil)
	e.addLive(reports.Row{Algorithm: "raft", Nodes: 64, Runtime: "live", Trial: 0}.Key(), 14.8e6)
	e.addLive(reports.Row{Algorithm: "raft", Nodes: 64, Runtime: "live", Trial: 1}.Key(), 14.8e6)
	for _, tc := range []struct{ at, want time.Duration }{
		{5 * time.Second, 24600 * time.Millisecond}, {14800 * time.Millisecond, 14800 * time.Millisecond}, {time.Minute, 14800 * time.Millisecond},
	} {
		if got, ok := e.remainingAt(start.Add(tc.at)); !ok || got.Round(time.Millisecond) != tc.want {
			t.Errorf("%v into the first trial: %v (%v) left, want %v", tc.at, got, ok, tc.want)
		}
	}
	// The first took 20 s: the second is priced at that, from its start.
	e.finished(reports.Row{Algorithm: "raft", Nodes: 64, Runtime: "live", Trial: 0}, start.Add(20*time.Second))
	if got, _ := e.remainingAt(start.Add(25 * time.Second)); got.Round(time.Millisecond) != 15*time.Second {
		t.Errorf("5 s into the second trial: %v left, want 15s", got)
	}
}

// A run of one long simulated trial has an ETA while it runs: from the
// events it has processed so far (workloads.Observer.Begin) against its
// estimate, at the rate it processed them; once a trial has finished, what
// the running ones did already is taken off what is left.
func TestETAWithinATrial(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newETA(t.Context(), start, nil, nil)
	e.processed = new(atomic.Int64)
	e.addSim(reports.Row{Algorithm: "chang-roberts", Nodes: 10_000_000, Trial: 0}.Key(), 3e7)
	if _, ok := e.remainingAt(start.Add(time.Second)); ok {
		t.Fatal("an ETA before any event was processed")
	}
	for _, tc := range []struct {
		at        time.Duration
		processed int64
		want      time.Duration
	}{{time.Second, 3e6, 9 * time.Second}, {5 * time.Second, 15e6, 5 * time.Second}, {9 * time.Second, 27e6, time.Second}} {
		e.processed.Store(tc.processed)
		if got, ok := e.remainingAt(start.Add(tc.at)); !ok || got.Round(time.Millisecond) != tc.want {
			t.Errorf("%v in, %d events processed: %v (%v) left, want %v", tc.at, tc.processed, got, ok, tc.want)
		}
	}
	// Two trials of 1e6 events: the first took 1 s; the second has done
	// half of its events, so half a second is left.
	e = newETA(t.Context(), start, nil, nil)
	e.processed = new(atomic.Int64)
	for i := range 2 {
		e.addSim(reports.Row{Algorithm: "lcr", Nodes: 1000, Trial: i}.Key(), 1e6)
	}
	e.finished(reports.Row{Algorithm: "lcr", Nodes: 1000, Trial: 0, Events: 1e6 - simOverhead}, start.Add(time.Second))
	e.processed.Store(5e5)
	if got, ok := e.remainingAt(start.Add(1500 * time.Millisecond)); !ok || got.Round(time.Millisecond) != 500*time.Millisecond {
		t.Errorf("half of the second trial done: %v (%v) left, want 500ms", got, ok)
	}
}

// Off a terminal, a run whose trials take long still writes its progress
// line every so often, not only when a trial ends.
func TestLogProgressTicks(t *testing.T) {
	var b livetest.Buffer // safe for the ticker's writes
	start := time.Now()
	l := &logProgress{w: &b, total: 1, start: start, last: start, every: time.Millisecond, now: time.Now, eta: newETA(t.Context(), start, nil, nil)}
	l.tick()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(b.String(), "progress: 0/1 trials") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	// While a live set-up is under way, the ticking lines say where it is.
	l.Setup(harness.Setup{Stage: harness.Linking, Algorithm: "raft", Nodes: 64, Done: 1, Total: 2}, 0)
	for strings.Count(b.String(), "setting up raft n=64 trial 0: linking 1/2") < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	l.Close()
	if !strings.Contains(b.String(), "progress: 0/1 trials (0%)") {
		t.Fatalf("no progress line while the trial ran: %q", b.String())
	}
	if strings.Count(b.String(), "setting up raft n=64 trial 0: linking 1/2") < 2 {
		t.Fatalf("the ticking lines do not say where the set-up is: %q", b.String())
	}
	n := len(b.String())
	time.Sleep(5 * time.Millisecond)
	if len(b.String()) != n {
		t.Fatal("progress lines after Close")
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
	ids, _ := workloads.ParseIDs("random")
	inits, _ := workloads.ParseInitiators("all")
	spec := func(sizes ...int) *workloads.Spec {
		s := &workloads.Spec{Scenario: "test", Algos: []workloads.Algo{{Alg: alg, Variant: variant}}, Nodes: sizes,
			IDs: ids, Initiators: inits, Trials: 2, Seed: 1, Latency: trial.Constant(time.Millisecond)}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	clean := spec(8, 16).Plan()
	crash, err := workloads.ParseCrash("highest")
	if err != nil {
		t.Fatal(err)
	}
	crashing := spec(8)
	crashing.Crashes = []workloads.CrashSpec{crash}
	cases := []struct {
		name  string
		plan  []workloads.Trial
		setup []bool // whether each trial pays for a new cluster
	}{
		{"clean, two sizes", clean, []bool{true, false, true, false}},
		{"a crash in every trial", crashing.Plan(), []bool{true, true}},
	}
	for _, c := range cases {
		e := newETA(t.Context(), time.Now(), livePlan(c.plan), nil)
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
		again := newETA(done, time.Now(), livePlan(c.plan), workloads.Costs(t.Context(), c.plan, true))
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
	ids, _ := workloads.ParseIDs("random")
	inits, _ := workloads.ParseInitiators("all")
	var algos []workloads.Algo
	for _, name := range []string{"chang-roberts", "token-ring"} {
		a, v, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		algos = append(algos, workloads.Algo{Alg: a, Variant: v})
	}
	s := &workloads.Spec{Scenario: "test", Algos: algos, Nodes: []int{5}, IDs: ids, Initiators: inits, Trials: 2, Seed: 1, Latency: trial.Constant(10 * time.Millisecond)}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	plan := s.Plan()
	start := time.Now()
	e := newETA(t.Context(), start, livePlan(plan), nil)
	now := start
	for i := range 2 {
		now = now.Add(time.Duration(e.liveNext[0] * float64(time.Microsecond)))
		e.finished(plan[i].LiveBaseRow(), now)
	}
	deadline := trial.DefaultDeadline(5, 10*time.Millisecond)
	if d, ok := e.remainingAt(now); !ok || d < 2*deadline || d > 3*deadline {
		t.Errorf("after the chang-roberts trials: %v left (known %v), want two token rings' deadlines, %v each, and a little", d, ok, deadline)
	}
}

// Kept processes hold the last trial's links only: a complete graph after
// a ring of its size pays for the links the ring lacked, a ring after a
// complete graph for none.
func TestETAKeptLinks(t *testing.T) {
	ids, _ := workloads.ParseIDs("random")
	inits, _ := workloads.ParseInitiators("lowest")
	var algos []workloads.Algo
	for _, name := range []string{"chang-roberts", "raft", "lcr"} {
		a, v, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		algos = append(algos, workloads.Algo{Alg: a, Variant: v})
	}
	s := &workloads.Spec{Scenario: "test", Algos: algos, Nodes: []int{16}, IDs: ids, Initiators: inits, Trials: 1, Seed: 1, Latency: trial.Constant(time.Millisecond)}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	plan := s.Plan()
	costs := workloads.Costs(t.Context(), plan, true)
	e := newETA(t.Context(), time.Now(), livePlan(plan), nil)
	link := 1.2e3 // µs a link, workloads.Trial.LiveSetupCost
	want := []float64{costs[0], costs[1] - plan[1].LiveSetupCost() + link*(16*15-16), costs[2] - plan[2].LiveSetupCost()}
	for i := range plan {
		if got := e.liveNext[i]; math.Abs(got-want[i]) > 1e-6 {
			t.Errorf("trial %d (%s): priced %v, want %v", i, plan[i].Algo.Alg.Name, got, want[i])
		}
	}
}

// livePlan marks a plan's trials live, as --runtime live does.
func livePlan(plan []workloads.Trial) []workloads.Trial {
	for i := range plan {
		plan[i].Live = true
	}
	return plan
}
