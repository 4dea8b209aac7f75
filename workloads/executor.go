package workloads

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/internal/gcfloor"
	"github.com/electbench/electbench/reports"
)

// Executor owns the execution of a plan, whichever runtimes its trials run
// on: one scheduler (simulated trials Parallel at a time, a live trial
// alone, since it uses a process per node and measures wall time; rows in
// plan order across both), resume and shard skipping (Skip), trace
// spooling, infrastructure errors and interrupts (ctx). What it does is
// told to an Observer: the CLI draws its bars and ETA from it, tests
// assert on it. Options of the Executor control how trials are executed,
// never what they compute: rows are the same whatever the parallelism.
type Executor struct {
	// Sim runs the simulated trials (default: Sim); Live the live ones
	// (Trial.Live), one at a time: nil refuses a plan with a live trial
	// before anything runs. A runtime with an Open(ctx) error method is
	// opened before its first trial that runs, and not at all when none
	// does (the live harness starts Toxiproxy).
	Sim, Live Runtime
	Parallel  int                // simulated trials run at once; 0 means one per core
	Skip      func(t Trial) bool // trials done already (resume) or another shard's: not run, not emitted
	// Trace, when set, receives the event trace of every trial TraceIf
	// selects (nil: every trial) in plan order, each preceded by a
	// {"trial":...} header line. A trial's trace is the same bytes whether
	// or not the others are traced.
	Trace    io.Writer
	TraceIf  func(t Trial) bool
	Observer Observer // nil: nobody watches
	// Flush, when set, is called once the rows emitted so far should
	// reach the operating system: before the executor waits for a
	// trial to end, after a traced trial's row (its trace is written
	// already) and after the last row. An emit that queues rows
	// (reports.Writer.Queue, with Writer.Flush here) so writes, in one
	// call, every row that was ready at once (group commit).
	Flush func() error
	// Costs, when set, are the plan's costs by Trial.Index, priced already
	// (PlanCosts: sharding does), which the ETA takes rather than price
	// the live trials again.
	Costs []float64
}

// Observer follows an execution. Its methods are called from the
// goroutine that called Execute.
type Observer interface {
	// Begin is told, before the first trial starts, the trials that will
	// run (those not skipped), in plan order, and the ETA of the run,
	// which the executor keeps up to date as trials end and as the
	// running simulated trials process events; it may be read from any
	// goroutine.
	Begin(toRun []Trial, eta *ETA)
	// Done is told each trial's row once emitted, in plan order, after
	// the ETA has taken it.
	Done(t Trial, row reports.Row)
}

// opener is a runtime that must be set up before its first trial.
type opener interface {
	Open(ctx context.Context) error
}

// Execute runs the plan and calls emit with each row in plan order, as
// soon as every earlier trial has been emitted. It stops early, and says
// why, when ctx is cancelled (the rows already emitted are complete;
// rerun with Skip for the rest: the interrupted trials are no result),
// when emit fails, or at the first live trial that failed for the
// infrastructure (an error wrapping trial.ErrInfrastructure, naming the
// trial, which is not emitted). A simulated row never passes for a live
// one: a live trial with no Live runtime is refused before anything runs.
func (x *Executor) Execute(ctx context.Context, plan []Trial, emit func(reports.Row) error) error {
	// The trials to run are the plan itself unless some are skipped: a
	// copy of a 470,000-trial plan held 50 MB through the whole run
	// (issue 39). Nothing here writes to a trial.
	toRun, copied := plan, false
	for i, t := range plan {
		if t.Live && x.Live == nil {
			return fmt.Errorf("trial %d (%s, %s N=%d): it runs live, and the executor has no live runtime", t.Index, t.Spec.Scenario, t.Algo.Alg.Name, t.Nodes)
		}
		switch skip := x.Skip != nil && x.Skip(t); {
		case skip && !copied:
			toRun, copied = append(make([]Trial, 0, len(plan)-1), plan[:i]...), true
		case !skip && copied:
			toRun = append(toRun, t)
		}
	}
	// A run of small trials keeps a small live heap, which the collector's
	// default goal would have it collect every few hundred trials; a big
	// trial's heap keeps the default goal, and so its peak (gcfloor). With
	// no trial to run (a --resume of a finished run) there is nothing to
	// collect less often, and the raised goal would only let garbage grow.
	if len(toRun) > 0 {
		defer gcfloor.Raise()()
	}
	var eta *ETA
	processed := new(atomic.Int64)
	if x.Observer != nil {
		eta = newETA(ctx, time.Now(), toRun, x.Costs)
		eta.processed = processed
		x.Observer.Begin(toRun, eta)
	}
	done := func(t Trial, row reports.Row) error {
		if err := emit(row); err != nil {
			return err
		}
		if x.Observer != nil {
			eta.finished(row, time.Now())
			x.Observer.Done(t, row)
		}
		return nil
	}
	opened := map[bool]bool{} // by Trial.Live: its runtime was opened
	// Consecutive trials on one runtime form a segment, run before the
	// next segment starts: a live trial never shares the host with
	// simulated ones.
	for len(toRun) > 0 {
		n := 1
		for n < len(toRun) && toRun[n].Live == toRun[0].Live {
			n++
		}
		seg := toRun[:n]
		toRun = toRun[n:]
		rt, live := x.runtime(seg[0]), seg[0].Live
		if o, ok := rt.(opener); ok && !opened[live] {
			if err := o.Open(ctx); err != nil {
				return err
			}
			opened[live] = true
		}
		var err error
		if live {
			err = x.runLive(ctx, rt, seg, done)
		} else {
			err = x.runSim(ctx, rt, seg, processed, done)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (x *Executor) runtime(t Trial) Runtime {
	switch {
	case t.Live:
		return x.Live
	case x.Sim != nil:
		return x.Sim
	}
	return Sim
}

// traced says whether t's trace is written.
func (x *Executor) traced(t Trial) bool {
	return x.Trace != nil && (x.TraceIf == nil || x.TraceIf(t))
}

// runLive runs live trials one at a time.
func (x *Executor) runLive(ctx context.Context, rt Runtime, trials []Trial, done func(Trial, reports.Row) error) error {
	for _, t := range trials {
		if err := ctx.Err(); err != nil {
			return err
		}
		traced := x.traced(t)
		row, sp, err := runLiveSpooled(ctx, rt, t, traced)
		if err != nil {
			return err
		}
		if traced {
			err := writeTrace(x.Trace, t, "live", sp)
			sp.discard()
			if err != nil {
				return err
			}
		}
		if err := done(t, row); err != nil {
			return err
		}
		if err := x.flush(); err != nil {
			return err
		}
	}
	return nil
}

// flush calls Flush, if set.
func (x *Executor) flush() error {
	if x.Flush == nil {
		return nil
	}
	return x.Flush()
}

// simResult is a simulated trial's outcome on its way to the emitter.
type simResult struct {
	index int
	row   reports.Row
	trace *spool // when traced: the trial's trace, on disk
	err   error  // the trace could not be spooled, or ctx's: the trial was interrupted
}

// runSim runs simulated trials Parallel at a time and hands their rows to
// done in order.
func (x *Executor) runSim(ctx context.Context, rt Runtime, trials []Trial, processed *atomic.Int64, done func(Trial, reports.Row) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := Parallelism(x.Parallel)
	results := make(chan simResult, p)
	// Workers take the next trial by its number, not from a goroutine
	// that hands each one over: a hand-off, and a wake-up, a trial fewer
	// (issue 42).
	var claimed atomic.Int64
	var wg sync.WaitGroup
	for range p {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(claimed.Add(1) - 1)
				if i >= len(trials) {
					return
				}
				results <- x.simTrial(ctx, rt, i, trials[i], processed)
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	next, err := x.emitInOrder(trials, results, cancel, done)
	if err != nil {
		return err
	}
	if next < len(trials) {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("executor: %d of %d trials finished", next, len(trials))
	}
	return nil
}

// simTrial runs one simulated trial, its trace spooled to disk.
func (x *Executor) simTrial(ctx context.Context, rt Runtime, i int, t Trial, processed *atomic.Int64) simResult {
	var sp *spool
	var w io.Writer
	if x.traced(t) {
		var err error
		if sp, err = newSpool(); err != nil {
			return simResult{index: i, err: err}
		}
		w = sp
	}
	row := t.simulate(ctx, rt, w, processed)
	if err := ctx.Err(); err != nil {
		// An interrupted trial's row is not a result: it stops the rows
		// here, and a resumed run runs it again.
		sp.discard()
		return simResult{index: i, err: err}
	}
	return simResult{index: i, row: row, trace: sp}
}

// emitInOrder hands the results to done in plan order as they complete,
// each after its trace, and returns how many it handed and the first
// error (after which it cancels the rest, discarding their traces).
func (x *Executor) emitInOrder(trials []Trial, results <-chan simResult, cancel func(), done func(Trial, reports.Row) error) (int, error) {
	var pending ahead
	next := 0
	var emitErr error
	unflushed := false // rows emitted since the last flush
	for {
		var r simResult
		var ok bool
		select {
		case r, ok = <-results:
		default:
			// None is ready: the rows emitted go out, in one write,
			// before the wait.
			if unflushed && emitErr == nil {
				if emitErr = x.flush(); emitErr != nil {
					cancel()
				}
			}
			unflushed = false
			r, ok = <-results
		}
		if !ok {
			break
		}
		// Results come mostly in order: the next one is emitted without
		// passing through pending.
		inOrder := r.index == next && emitErr == nil
		if inOrder {
			pending.skip()
		} else {
			pending.put(r.index-next, r)
		}
		for emitErr == nil {
			if !inOrder {
				var ok bool
				if r, ok = pending.take(); !ok {
					break
				}
			}
			inOrder = false
			next++
			if emitErr = r.err; emitErr != nil {
				break
			}
			if r.trace != nil {
				emitErr = writeTrace(x.Trace, trials[r.index], "", r.trace)
				r.trace.discard()
				if emitErr != nil {
					break
				}
			}
			if emitErr = done(trials[r.index], r.row); emitErr == nil && r.trace != nil {
				// Its trace is in the file already: the row follows
				// at once, as when rows were not queued.
				emitErr = x.flush()
				continue
			}
			unflushed = true
		}
		if emitErr != nil {
			cancel()
		}
	}
	if unflushed {
		// The rows emitted are whole whatever stopped the rest.
		if err := x.flush(); emitErr == nil {
			emitErr = err
		}
	}
	for i, r := range pending.slots { // left by an error: not written
		if pending.has[i] {
			r.trace.discard()
		}
	}
	return next, emitErr
}

// ahead holds the results that came before their turn, by how far ahead
// of the next one to emit they are, in a ring that grows as needed: a map
// stored each value (a row, a kilobyte) apart, an allocation a trial at
// --parallel 2 (issue 42).
type ahead struct {
	slots []simResult
	has   []bool
	head  int // the slot of the next result to emit
}

// put holds r, k ≥ 0 results ahead of the next.
func (a *ahead) put(k int, r simResult) {
	if k >= len(a.slots) {
		a.grow(k + 1)
	}
	j := (a.head + k) % len(a.slots)
	a.slots[j], a.has[j] = r, true
}

// take removes and returns the next result, if it came.
func (a *ahead) take() (simResult, bool) {
	if len(a.slots) == 0 || !a.has[a.head] {
		return simResult{}, false
	}
	r := a.slots[a.head]
	a.slots[a.head], a.has[a.head] = simResult{}, false
	a.head = (a.head + 1) % len(a.slots)
	return r, true
}

// skip moves past the next result, emitted without being held.
func (a *ahead) skip() {
	if len(a.slots) > 0 {
		a.head = (a.head + 1) % len(a.slots)
	}
}

// grow makes room for at least n results ahead, the next one's slot first.
func (a *ahead) grow(n int) {
	size := max(2*len(a.slots), n, 4)
	slots, has := make([]simResult, size), make([]bool, size)
	for k := range a.slots {
		j := (a.head + k) % len(a.slots)
		slots[k], has[k] = a.slots[j], a.has[j]
	}
	a.slots, a.has, a.head = slots, has, 0
}

// Parallelism is the simulated trials run at once for a --parallel of p:
// p, or one per core when p is 0 or less.
func Parallelism(p int) int {
	if p <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return p
}
