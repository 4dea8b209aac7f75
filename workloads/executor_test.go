package workloads

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// RunTrial of a planned trial's configuration yields the row the plan's
// run does, but for the columns that name the plan (scenario, arrangement,
// initiators, trial), with the record and verdict that row was built from: also
// under a crash at the start, whose disturbance it reads from the
// configuration's faults alone.
func TestRunTrialFromConfig(t *testing.T) {
	clean := spec(t, "chang-roberts,lcr", "5,8", "random", "lowest", "uniform(1ms,3ms)", 2)
	crashed := spec(t, "chang-roberts", "6", "random", "lowest", "1ms", 2)
	c, err := ParseCrash("highest")
	if err != nil {
		t.Fatal(err)
	}
	crashed.Crashes = []CrashSpec{c}
	for _, tr := range slices.Concat(clean.Plan(), crashed.Plan()) {
		res, err := RunTrial(t.Context(), Sim, tr.config(tr.Spec.IDs))
		if err != nil {
			t.Fatal(err)
		}
		want := RunSim(tr, nil)
		got := res.Row
		if got.Scenario != "config" || got.Runtime != "sim" {
			t.Errorf("%s N=%d: scenario %q runtime %q, want config and sim", tr.Algo.Alg.Name, tr.Nodes, got.Scenario, got.Runtime)
		}
		got.Scenario, got.Arrangement, got.Initiators, got.Trial = want.Scenario, want.Arrangement, want.Initiators, want.Trial
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("%s N=%d trial %d:\n got %+v\nwant %+v", tr.Algo.Alg.Name, tr.Nodes, tr.Trial, got, want)
		}
		if res.Record == nil || res.Record.Messages != want.Messages || res.Verdict.Correct != want.Correct || res.Verdict.Leader != want.Leader {
			t.Errorf("%s N=%d: record %v, verdict %+v; the row says messages %d correct %v leader %q",
				tr.Algo.Alg.Name, tr.Nodes, res.Record, res.Verdict, want.Messages, want.Correct, want.Leader)
		}
	}
}

// failing is a runtime whose every trial fails with err.
type failing struct{ err error }

func (f failing) Run(context.Context, trial.Config) (*trial.Record, error) { return nil, f.err }

// A trial is no result when its context ended or its runtime's
// infrastructure failed: RunTrial says so, with what was seen; any other
// failure is a row with its error column.
func TestRunTrialNoResult(t *testing.T) {
	tr := spec(t, "chang-roberts", "5", "random", "lowest", "1ms", 1).Plan()[0]
	cfg := tr.config(tr.Spec.IDs)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := RunTrial(ctx, Sim, cfg); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	infra := failing{fmt.Errorf("live: %w: toxiproxy stopped", trial.ErrInfrastructure)}
	res, err := RunTrial(t.Context(), infra, cfg)
	if !errors.Is(err, trial.ErrInfrastructure) || res.Row.Error == "" || res.Record != nil {
		t.Errorf("infrastructure: %v, row error %q, record %v", err, res.Row.Error, res.Record)
	}
	res, err = RunTrial(t.Context(), failing{errors.New("no such thing")}, cfg)
	if err != nil || res.Row.Error != "no such thing" || res.Row.Correct {
		t.Errorf("a failed trial: %v, row %+v", err, res.Row)
	}
}

// asLive marks a plan's trials live (as --runtime live does), for the
// executor's live runtime.
func asLive(plan []Trial) []Trial {
	for i := range plan {
		plan[i].Live = true
	}
	return plan
}

// watcher is an Observer that keeps what it is told.
type watcher struct {
	begun []int // Trial.Index of the trials to run
	eta   *ETA
	done  []int
	rows  []reports.Row
	known int // rows after which the ETA knew the time left
}

func (w *watcher) Begin(toRun []Trial, eta *ETA) {
	for _, t := range toRun {
		w.begun = append(w.begun, t.Index)
	}
	w.eta = eta
}

func (w *watcher) Done(t Trial, row reports.Row) {
	w.done = append(w.done, t.Index)
	w.rows = append(w.rows, row)
	if _, ok := w.eta.Remaining(time.Now()); ok {
		w.known++
	}
}

// simCounting is the simulator, counting the trials it runs at once.
type simCounting struct{ running *atomic.Int64 }

func (s simCounting) Run(ctx context.Context, cfg trial.Config) (*trial.Record, error) {
	s.running.Add(1)
	defer s.running.Add(-1)
	return Sim.Run(ctx, cfg)
}

// fakeLive stands in for the live harness: the simulator under the live
// runtime's name, refusing to run beside a simulated trial and counting
// how often it is opened.
type fakeLive struct {
	simRunning *atomic.Int64
	opened     int
	beside     int // trials run while a simulated one ran
}

func (f *fakeLive) Open(context.Context) error { f.opened++; return nil }
func (f *fakeLive) Capabilities() trial.Capabilities {
	return trial.Capabilities{Runtime: "live"}
}

func (f *fakeLive) Run(ctx context.Context, cfg trial.Config) (*trial.Record, error) {
	if f.simRunning.Load() != 0 {
		f.beside++
	}
	return Sim.Run(ctx, cfg)
}

// One executor over both runtimes: rows in plan order across them, a live
// trial never beside a simulated one, the live runtime opened once before
// its first trial and not at all when every live trial is skipped, and
// the observer told the trials to run and each row as it is emitted.
func TestExecutorMixedPlan(t *testing.T) {
	var plan []Trial
	sims := spec(t, "chang-roberts,lcr", "4,8", "random", "lowest", "1ms", 2)
	lives := spec(t, "chang-roberts", "4", "random", "lowest", "1ms", 2)
	for _, tr := range slices.Concat(sims.Plan(), asLive(lives.Plan()), sims.Plan()[:2]) {
		tr.Index = len(plan)
		plan = append(plan, tr)
	}
	skip := func(tr Trial) bool { return tr.Index == 1 || tr.Index == 9 }
	running := new(atomic.Int64)
	live := &fakeLive{simRunning: running}
	w := &watcher{}
	var emitted []reports.Row
	x := &Executor{Sim: simCounting{running}, Live: live, Parallel: 3, Skip: skip, Observer: w}
	if err := x.Execute(t.Context(), plan, func(r reports.Row) error { emitted = append(emitted, r); return nil }); err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, tr := range plan {
		if !skip(tr) {
			want = append(want, tr.Index)
		}
	}
	if !slices.Equal(w.begun, want) || !slices.Equal(w.done, want) || len(emitted) != len(want) {
		t.Fatalf("begun %v, done %v, %d rows emitted; want trials %v", w.begun, w.done, len(emitted), want)
	}
	for i, r := range emitted {
		tr := plan[want[i]]
		if r.Key() != tr.Key() || (r.Runtime == "live") != tr.Live || fmt.Sprint(r) != fmt.Sprint(w.rows[i]) {
			t.Errorf("row %d: %s %s N=%d trial %d; want trial %d of the plan (%v)", i, r.Runtime, r.Algorithm, r.Nodes, r.Trial, tr.Index, tr.Key())
		}
	}
	if live.opened != 1 || live.beside != 0 {
		t.Errorf("live runtime opened %d times, ran %d trials beside simulated ones", live.opened, live.beside)
	}
	// Once trials have ended the ETA knows the time left: none at the end.
	if left, ok := w.eta.Remaining(time.Now()); w.known == 0 || !ok || left > time.Second {
		t.Errorf("the ETA knew the time left after %d of %d rows; at the end %v (%v), want none", w.known, len(want), left, ok)
	}
	live.opened = 0
	x.Skip = func(tr Trial) bool { return tr.Live }
	if err := x.Execute(t.Context(), plan, func(reports.Row) error { return nil }); err != nil || live.opened != 0 {
		t.Errorf("every live trial skipped: %v, live runtime opened %d times", err, live.opened)
	}
}

// traceByTrial splits a trace into its trials' parts (header line and
// events) by the header, in order.
func traceByTrial(t *testing.T, trace string) []string {
	t.Helper()
	var parts []string
	for line := range strings.Lines(trace) {
		if strings.HasPrefix(line, `{"trial":`) {
			parts = append(parts, "")
		}
		if len(parts) == 0 {
			t.Fatalf("the trace starts with %q, not a trial's header", line)
		}
		parts[len(parts)-1] += line
	}
	return parts
}

// TraceIf traces the trials it selects, simulated and live, and each is
// the same bytes as when every trial is traced (the run's default trace
// of an incident's first trials draws the time-line --trace's would);
// the rows are the same whether or not a trial is traced.
func TestExecutorTracesSelected(t *testing.T) {
	var plan []Trial
	sims := spec(t, "chang-roberts,lcr", "4,8", "random", "lowest", "1ms", 3)
	lives := spec(t, "chang-roberts", "4", "random", "lowest", "1ms", 2)
	for _, tr := range slices.Concat(sims.Plan(), asLive(lives.Plan())) {
		tr.Index = len(plan)
		plan = append(plan, tr)
	}
	run := func(only func(Trial) bool) (string, []reports.Row) {
		var trace strings.Builder
		var rows []reports.Row
		x := &Executor{Live: &fakeLive{simRunning: new(atomic.Int64)}, Parallel: 3, Trace: &trace, TraceIf: only}
		if err := x.Execute(t.Context(), plan, func(r reports.Row) error { rows = append(rows, r); return nil }); err != nil {
			t.Fatal(err)
		}
		return trace.String(), rows
	}
	all, allRows := run(nil)
	parts := traceByTrial(t, all)
	if len(parts) != len(plan) {
		t.Fatalf("every trial traced: %d trials in the trace, want %d", len(parts), len(plan))
	}
	only := func(tr Trial) bool { return tr.Trial == 0 || tr.Live }
	got, rows := run(only)
	var want []string
	for i, tr := range plan {
		if only(tr) {
			want = append(want, parts[i])
		}
	}
	gotParts := traceByTrial(t, got)
	if len(gotParts) != len(want) || len(want) != 6 {
		t.Fatalf("selected trials traced: %d, want %d (4 configurations' first trial, 2 live)", len(gotParts), len(want))
	}
	for i := range want {
		if gotParts[i] != want[i] {
			t.Errorf("selected trial %d: its trace differs from the one every trial's trace holds (%.80q against %.80q)", i, gotParts[i], want[i])
		}
	}
	if fmt.Sprint(rows) != fmt.Sprint(allRows) {
		t.Error("the rows differ between a trace of every trial and a selective one")
	}
}

// eventCount counts the events of each kind a trial tells it.
type eventCount map[trial.EventKind]int

func (c eventCount) Event(e *trial.Event) { c[e.Kind]++ }

// Watch runs a planned trial as a run does, its row the run's to the
// byte, while the sink it is given sees the trial's events: every
// message sent and every decision the row counts.
func TestWatchSeesTheEventsOfTheRunsTrial(t *testing.T) {
	s := spec(t, "chang-roberts,bully", "5", "random", "lowest", "uniform(1ms,3ms)", 2)
	for _, tr := range s.Plan() {
		seen := eventCount{}
		var ranks int
		res := tr.Watch(t.Context(), Sim, func(cfg *trial.Config) trial.Sink {
			ranks = cfg.Ranks.Len()
			return seen
		})
		want := RunSim(tr, nil)
		if fmt.Sprintf("%+v", res.Row) != fmt.Sprintf("%+v", want) {
			t.Errorf("%s trial %d: watched row differs from the run's:\n got %+v\nwant %+v", tr.Algo.Alg.Name, tr.Trial, res.Row, want)
		}
		if ranks != tr.Nodes {
			t.Errorf("%s: watch was given a configuration of %d ranks, want %d", tr.Algo.Alg.Name, ranks, tr.Nodes)
		}
		if int64(seen[trial.EvSend]) != want.Messages || seen[trial.EvDecide] < tr.Nodes {
			t.Errorf("%s trial %d: the sink saw %d sends and %d decisions; the row counts %d messages over %d processes",
				tr.Algo.Alg.Name, tr.Trial, seen[trial.EvSend], seen[trial.EvDecide], want.Messages, tr.Nodes)
		}
	}
	// No watch: the row is the run's all the same.
	tr := s.Plan()[0]
	if got, want := tr.Watch(t.Context(), Sim, nil).Row, RunSim(tr, nil); fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("unwatched row differs from the run's")
	}
}

// TestAheadEmitsInOrder: results that come in any order within a window
// (as workers finish them) leave the ring in plan order, each once, as
// the map it replaced gave them.
func TestAheadEmitsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, window := range []int{1, 2, 3, 17} {
		const n = 2000
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		// Shuffle within blocks of window: a result is at most window-1
		// ahead of the next.
		for lo := 0; lo < n; lo += window {
			hi := min(lo+window, n)
			r.Shuffle(hi-lo, func(i, j int) { order[lo+i], order[lo+j] = order[lo+j], order[lo+i] })
		}
		var a ahead
		next := 0
		for _, i := range order {
			if i == next {
				// Emitted at once, as emitInOrder does, past the ring.
				a.skip()
				next++
			} else {
				a.put(i-next, simResult{index: i})
			}
			for {
				got, ok := a.take()
				if !ok {
					break
				}
				if got.index != next {
					t.Fatalf("window %d: emitted %d, want %d", window, got.index, next)
				}
				next++
			}
		}
		if next != n {
			t.Fatalf("window %d: emitted %d of %d", window, next, n)
		}
	}
}

// flushLog is an emit that queues rows and a Flush that hands them over,
// as reports.Writer's Queue and Flush do, keeping each batch flushed.
type flushLog struct {
	mu      sync.Mutex
	queued  []int   // Row.Trial
	batches [][]int // what each flush handed over
}

func (f *flushLog) emit(r reports.Row) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queued = append(f.queued, r.Trial)
	return nil
}

func (f *flushLog) flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queued) > 0 {
		f.batches = append(f.batches, f.queued)
		f.queued = nil
	}
	return nil
}

// flushed is the rows flushed, in order.
func (f *flushLog) flushed() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Concat(f.batches...)
}

// gatedSim is the simulator, each trial held at its start until wait
// says it may run.
type gatedSim struct {
	trial func(seed uint64) int // the trial of a seed
	wait  func(trial int) bool  // false: it waited too long
	late  *atomic.Int64         // trials that waited too long
}

func (g gatedSim) Run(ctx context.Context, cfg trial.Config) (*trial.Record, error) {
	if !g.wait(g.trial(cfg.Seed)) {
		g.late.Add(1)
	}
	return Sim.Run(ctx, cfg)
}

// waitFor polls cond for up to ten seconds.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// Group commit (Executor.Flush): the rows emitted are flushed before the
// executor waits for a trial, so no row waits on a trial still running;
// rows ready at once go out in one flush; every row is flushed by the
// end, in plan order.
func TestExecutorFlushesBeforeItWaits(t *testing.T) {
	plan := spec(t, "chang-roberts", "4", "random", "lowest", "1ms", 6).Plan()
	trialOf := map[uint64]int{}
	for _, tr := range plan {
		trialOf[tr.Seed] = tr.Trial
	}
	all := []int{0, 1, 2, 3, 4, 5}
	late := new(atomic.Int64)
	// One worker: trial i starts once rows 0..i-2 are flushed (row i-1
	// is the one the emitter is handed while trial i runs). An executor
	// that flushed only at the end would hold every trial.
	f := &flushLog{}
	sim := gatedSim{trial: func(s uint64) int { return trialOf[s] }, late: late,
		wait: func(i int) bool { return waitFor(func() bool { return len(f.flushed()) >= i-1 }) }}
	x := &Executor{Sim: sim, Parallel: 1, Flush: f.flush}
	if err := x.Execute(t.Context(), plan, f.emit); err != nil {
		t.Fatal(err)
	}
	if late.Load() != 0 || !slices.Equal(f.flushed(), all) || len(f.queued) != 0 {
		t.Fatalf("one worker: %d trials held by rows not flushed; flushed %v, left queued %v", late.Load(), f.flushed(), f.queued)
	}
	// Three workers. Trial 0 ends once 3 and 4 have started, which the
	// workers of 1 and 2 start after handing over their results; 3 to 5
	// wait for rows 0 to 2: those three are ready at once, and go out in
	// one flush.
	var started [6]atomic.Bool
	f = &flushLog{}
	sim.wait = func(i int) bool {
		started[i].Store(true)
		switch i {
		case 0:
			return waitFor(func() bool { return started[3].Load() && started[4].Load() })
		case 3, 4, 5:
			return waitFor(func() bool { return len(f.flushed()) >= 3 })
		}
		return true
	}
	x = &Executor{Sim: sim, Parallel: 3, Flush: f.flush}
	if err := x.Execute(t.Context(), plan, f.emit); err != nil {
		t.Fatal(err)
	}
	if late.Load() != 0 || len(f.batches) == 0 || !slices.Equal(f.batches[0], []int{0, 1, 2}) || !slices.Equal(f.flushed(), all) {
		t.Fatalf("three workers: %d trials held; batches %v, want [0 1 2] first, then 3 to 5", late.Load(), f.batches)
	}
}
