package workloads

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/reports"
)

// A simulated trial pays a fixed set-up beside its events, counted as
// simOverhead events. Live trials are measured in the units of
// Trial.Cost (10⁶ + 10⁴·N).
const simOverhead = 2000

// liveSecondsPerCost is the time a unit of live cost is assumed to take
// before any live trial has finished: a unit is a microsecond
// (Trial.Cost).
const liveSecondsPerCost = 1e-6

// ETA predicts the time a run has left from the plan's estimates and what
// the finished trials turned out to cost. Simulated trials, per algorithm:
// the wall time per event processed (each trial's events column, plus a
// fixed set-up) measured on that algorithm's finished trials, times the
// events its trials left will process — their estimates, corrected by how
// all of its finished trials compared with theirs (a systematic error of
// the estimate, or trials a budget stops early, then cancel out). Both are
// sums over every finished trial, not the latest one's: one trial's events
// vary with its seed (random latency, a budget that stops it), and an ETA
// that followed each would swing with them. An algorithm none of whose
// trials has finished is priced at the rates of all finished trials. Live
// trials run after the simulated ones at their own rate, measured the same
// way (on their costs) once one has finished. An ETA from trial counts
// swings by orders of magnitude over a sweep of N; this one does not.
type ETA struct {
	mu sync.Mutex // Finished comes from the executor, Remaining from whoever draws it
	// simNext is the estimated events of the simulated trials left, in
	// the order they finish (plan order: the executor emits rows so), as
	// liveNext is the live trials': a trial's estimate is the next one
	// of its runtime's, not looked up by its key, whose strings a sweep
	// of small trials built and hashed twice a trial (issue 42). It holds
	// a run of trials with one estimate (a configuration's) once, not a
	// number a trial: a 470,000-trial plan's were 4 MB through the run,
	// and 20 MB while they were appended (issue 39).
	simNext  []estimates
	alg      map[string]*algETA // simulated trials by algorithm
	liveLeft float64            // cost of the live trials left
	liveNext []float64          // and each one's, in the order they run (the first is running)
	liveDone float64            // and of those finished
	liveTime time.Duration      // wall time of the finished live trials
	prev     time.Time          // when the last trial finished, or the run started
	start    time.Time          // when the run started
	// processed, when set, holds the events the running simulated trials
	// have processed (trial.Config.Processed): a run of a few long trials
	// has an ETA before the first ends, and one that does not stand still
	// while they run.
	processed *atomic.Int64
}

// algETA is an algorithm's simulated trials: those left, and what the
// finished ones were estimated at, processed and took.
type algETA struct {
	left       float64       // estimated events of the trials left
	count      int           // and how many they are
	done       int           // trials finished
	doneEst    float64       // their estimated events
	doneEvents float64       // the events they processed
	doneTime   time.Duration // their wall time
}

// work is the finished trials' events plus a set-up each.
func (a *algETA) work() float64 { return a.doneEvents + simOverhead*float64(a.done) }

// price is the seconds a's trials left take at the rates of m's finished
// trials: the wall time per event processed (and set-up), times the events
// a's estimates come to once corrected as m's turned out.
func (a *algETA) price(m *algETA) float64 {
	if m.done == 0 {
		return 0
	}
	corr := 1.0 // events processed per event estimated
	if m.doneEst > 0 {
		corr = m.doneEvents / m.doneEst
	}
	return m.doneTime.Seconds() / m.work() * (a.left*corr + simOverhead*float64(a.count))
}

// estimates are n consecutive trials estimated at est each.
type estimates struct {
	est float64
	n   int
}

// newETA prepares the ETA of the trials a run will execute, in plan order;
// costs are the plan's costs by Trial.Index when already priced (sharding
// does), otherwise ctx stops the simulations that price the live trials
// (Costs).
func newETA(ctx context.Context, start time.Time, toRun []Trial, costs []float64) *ETA {
	e := &ETA{alg: map[string]*algETA{}, prev: start, start: start}
	// The simulated trials are priced in place, not copied out of the
	// plan (74 MB while a 470,000-trial plan of 39 MB was copied by
	// appending, issue 39); the live ones, a few hundred at most, are.
	var live []Trial
	for _, t := range toRun {
		if t.Live {
			live = append(live, t)
		} else {
			e.addSim(t.Algo.Alg.Name, t.simCost())
		}
	}
	liveCosts := make([]float64, len(live))
	if costs == nil {
		liveCosts = Costs(ctx, live, true)
	} else {
		for i, t := range live {
			liveCosts[i] = costs[t.Index]
		}
	}
	// A live trial that follows one of its size which keeps its
	// processes runs on them, and does not start a cluster: it makes only
	// the links the last one's processes lack.
	var prev *Trial
	for i, t := range live {
		cost := liveCosts[i]
		if prev != nil && prev.Nodes == t.Nodes && prev.KeepsProcesses() && t.KeepsProcesses() {
			cost -= t.LiveSetupCost() - t.WarmSetupCost(*prev)
		}
		e.addLive(cost)
		prev = &t
	}
	return e
}

func (e *ETA) algorithm(name string) *algETA {
	a := e.alg[name]
	if a == nil {
		a = &algETA{}
		e.alg[name] = a
	}
	return a
}

// addSim adds the next simulated trial to run, of algorithm alg,
// estimated at events.
func (e *ETA) addSim(alg string, events float64) {
	if k := len(e.simNext) - 1; k >= 0 && e.simNext[k].est == events {
		e.simNext[k].n++
	} else {
		e.simNext = append(e.simNext, estimates{events, 1})
	}
	a := e.algorithm(alg)
	a.left += events
	a.count++
}

// addLive adds the next live trial to run, at cost.
func (e *ETA) addLive(cost float64) {
	e.liveLeft += cost
	e.liveNext = append(e.liveNext, cost)
}

// finished notes a trial's row at time now: the next trial added of its
// runtime's.
func (e *ETA) finished(r reports.Row, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.Runtime == "live" {
		est := next(&e.liveNext) // live trials run one at a time, in plan order
		e.liveLeft -= est
		e.liveDone += est
		e.liveTime += now.Sub(e.prev)
	} else {
		est := nextSim(&e.simNext)
		a := e.algorithm(r.Algorithm)
		a.left -= est
		a.count--
		a.done++
		a.doneEst += est
		a.doneEvents += float64(r.Events)
		a.doneTime += now.Sub(e.prev)
	}
	e.prev = now
}

// next takes the first of q's estimates: 0 when none is left.
func next(q *[]float64) float64 {
	if len(*q) == 0 {
		return 0
	}
	est := (*q)[0]
	*q = (*q)[1:]
	return est
}

// nextSim takes the first of q's estimates: 0 when none is left.
func nextSim(q *[]estimates) float64 {
	if len(*q) == 0 {
		return 0
	}
	est := (*q)[0].est
	if (*q)[0].n--; (*q)[0].n == 0 {
		*q = (*q)[1:]
	}
	return est
}

// Remaining is the time the run has left at time now, and false while
// nothing is known to base it on.
func (e *ETA) Remaining(now time.Time) (time.Duration, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.remainingAt(now)
}

func (e *ETA) remainingAt(now time.Time) (time.Duration, bool) {
	var all algETA // every finished simulated trial: the rates of algorithms not yet measured
	for _, a := range e.alg {
		all.done += a.done
		all.doneEst += a.doneEst
		all.doneEvents += a.doneEvents
		all.doneTime += a.doneTime
	}
	var running float64 // events the running simulated trials have processed
	if e.processed != nil {
		running = float64(e.processed.Load())
	}
	var left float64 // seconds
	simLeft := false
	var simEst float64 // estimated events of the simulated trials left
	for _, a := range e.alg {
		if a.count <= 0 {
			continue
		}
		simLeft = true
		simEst += a.left
		if all.done == 0 {
			continue
		}
		// a's own rates, once its finished trials weigh a tenth of what it
		// has left (estimated); the rates of every finished trial before
		// that, and a mixture between: a sweep's smallest trials are mostly
		// set-up and say little about its largest.
		w := 0.0
		if a.done > 0 {
			w = min(1, 10*a.doneEst/a.left)
		}
		left += w*a.price(a) + (1-w)*a.price(&all)
	}
	switch {
	case simLeft && all.done == 0:
		// Nothing finished yet: the rate at which the running trials
		// process events, once they have processed some.
		elapsed := now.Sub(e.start).Seconds()
		if running <= 0 || elapsed <= 0 {
			return 0, false
		}
		left = max(simEst-running, 0) / (running / elapsed)
	case simLeft && running > 0:
		// What the running trials did already is not left to do.
		left = max(left-running*all.doneTime.Seconds()/all.work(), 0)
	}
	if e.liveLeft > 0 {
		perCost := liveSecondsPerCost
		if e.liveDone > 0 {
			perCost = e.liveTime.Seconds() / e.liveDone
		}
		liveLeft := perCost * e.liveLeft
		if !simLeft && len(e.liveNext) > 0 {
			// The live trial running since the last one ended has done
			// that much of its share; one that outruns its share leaves
			// the trials after it.
			current := perCost * e.liveNext[0]
			liveLeft -= min(now.Sub(e.prev).Seconds(), current)
		}
		left += liveLeft
	}
	if !simLeft && e.liveLeft <= 0 && all.done == 0 && e.liveDone == 0 {
		return 0, false
	}
	if left <= 0 && (simLeft || e.liveLeft > 0) {
		return 0, false // what runs has outrun its estimate: overdue, by an unknown time
	}
	return time.Duration(left * float64(time.Second)), true
}

// priorSecondsPerEvent is what a simulated event (and a set-up, as
// simOverhead events) is assumed to take on one core before a run has
// measured anything: the figure of a 2-core VM of the kind CI runs on,
// measured with the host loaded about 3.5 processes a core (chang-roberts
// at N = 5: 0.09 µs; raft's Figure 16: 1.9 µs; bully at N = 512: 1.6
// µs) and taken for a quieter host. A plan's preview (PlanCost) uses it;
// a run's ETA replaces it with what its own trials took.
const priorSecondsPerEvent = 0.5e-6

// traceBytesPerEvent is what a simulated event costs in a trace, measured
// on the sameresults trace (lcr, hs and chang-roberts at N = 500, all
// initiating: 186 bytes an event, a send and a delivery line per message).
const traceBytesPerEvent = 190

// sameConfig says whether trials a and b run the same configuration (spec,
// algorithm and size): the same Estimate.
func sameConfig(a, b Trial) bool {
	return a.Spec == b.Spec && a.Nodes == b.Nodes && a.Algo.Alg == b.Algo.Alg &&
		a.Algo.Variant == b.Algo.Variant && a.Algo.UpTo == b.Algo.UpTo && maps.Equal(a.Algo.Params, b.Algo.Params)
}

// PlanCost is what a plan is expected to cost before anything runs: its
// trials, the events the simulated ones process (Trial.Estimate), the wall
// time at parallel workers from the prior rate (the live trials one at a
// time, at Trial.Cost's microseconds), the memory of the parallel largest
// simulated trials at once, and the trace's size if every trial were
// traced.
type PlanCost struct {
	Trials, Live int
	Events       float64
	Wall         time.Duration
	PeakMemory   float64
	TraceBytes   float64
}

// EstimatePlan works out trials' PlanCost at parallel workers (at least
// one); ctx stops the simulations that price live trials (Costs).
func EstimatePlan(ctx context.Context, trials []Trial, parallel int) PlanCost {
	parallel = max(parallel, 1)
	var c PlanCost
	var simSeconds float64
	var mems []float64 // the parallel largest trials', largest first
	var live []Trial
	var e Estimate
	for i, t := range trials {
		c.Trials++
		if t.Live {
			c.Live++
			live = append(live, t)
			continue
		}
		// A trial's estimate is its configuration's, which the trials
		// before it mostly share: one worked out a configuration, not a
		// trial (it builds a machine to size it: 3% of a 10,000-trial
		// bully run's CPU, issue 42).
		if i == 0 || trials[i-1].Live || !sameConfig(t, trials[i-1]) {
			e = t.Estimate()
		}
		c.Events += e.Events
		c.TraceBytes += traceBytesPerEvent * e.Events
		simSeconds += (e.Events + simOverhead) * priorSecondsPerEvent
		if j, _ := slices.BinarySearchFunc(mems, e.Memory, func(m, v float64) int { return cmp.Compare(v, m) }); j < parallel {
			mems = slices.Insert(mems, j, e.Memory)[:min(len(mems)+1, parallel)]
		}
	}
	for _, m := range mems {
		c.PeakMemory += m
	}
	var liveSeconds float64
	for _, cost := range Costs(ctx, live, true) {
		liveSeconds += cost * liveSecondsPerCost
	}
	workers := float64(min(parallel, max(c.Trials-c.Live, 1)))
	c.Wall = time.Duration((simSeconds/workers + liveSeconds) * float64(time.Second))
	return c
}
