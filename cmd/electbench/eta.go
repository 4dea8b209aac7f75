package main

import (
	"time"

	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// A simulated trial pays a fixed set-up beside its events, counted as
// simOverhead events. Live trials are measured in the units of
// workloads.Trial.Cost (10⁶ + 10⁴·N).
const simOverhead = 2000

// liveSecondsPerCost is the time a unit of live cost is assumed to take
// before any live trial has finished (1 s + 10 ms per process).
const liveSecondsPerCost = 1e-6

// eta predicts the time a run has left from the plan's estimates and what
// the finished trials turned out to cost. Simulated trials: the wall time
// per event processed (each trial's events column, plus a fixed set-up)
// measured so far, times the events the trials left will process — their
// estimates, corrected per algorithm by how the latest finished trial of
// that algorithm compared with its own (a systematic error of the
// estimate, or trials a budget stops early, then cancel out). Live trials
// run after the simulated ones at their own rate, measured the same way
// (on their costs) once one has finished. An ETA from trial counts swings
// by orders of magnitude over a sweep of N; this one does not.
type eta struct {
	est      map[reports.Key]float64 // each trial's cost (estimated events, for simulated ones)
	simLeft  map[string]float64      // estimated events of the simulated trials left, by algorithm
	simCount map[string]int          // and how many they are
	corr     map[string]float64      // actual / estimated events of the algorithm's latest trial
	simDone  float64                 // events (plus set-up) of the simulated trials finished
	liveLeft float64                 // cost of the live trials left
	liveDone float64                 // and of those finished
	spent    [2]time.Duration        // wall time of the finished simulated and live trials
	prev     time.Time               // when the last trial finished, or the run started
}

// newETA prepares the ETA of the trials a run will execute (skip leaves
// out those already done, or in another shard).
func newETA(start time.Time, sim, live []workloads.Trial, skip, liveSkip func(workloads.Trial) bool) *eta {
	e := &eta{est: map[reports.Key]float64{}, simLeft: map[string]float64{}, simCount: map[string]int{}, corr: map[string]float64{}, prev: start}
	for _, t := range sim {
		if skip == nil || !skip(t) {
			e.addSim(t.BaseRow().Key(), t.Cost(false))
		}
	}
	for _, t := range live {
		if liveSkip == nil || !liveSkip(t) {
			e.addLive(t.LiveBaseRow().Key(), t.Cost(true))
		}
	}
	return e
}

func (e *eta) addSim(k reports.Key, events float64) {
	e.est[k] = events
	e.simLeft[k.Algorithm] += events
	e.simCount[k.Algorithm]++
}

func (e *eta) addLive(k reports.Key, cost float64) {
	e.est[k] = cost
	e.liveLeft += cost
}

// finished notes a trial's row at time now.
func (e *eta) finished(r reports.Row, now time.Time) {
	k := r.Key()
	est := e.est[k]
	if r.Runtime == "live" {
		e.liveLeft -= est
		e.liveDone += est
		e.spent[1] += now.Sub(e.prev)
	} else {
		e.simLeft[r.Algorithm] -= est
		e.simCount[r.Algorithm]--
		if est > 0 {
			e.corr[r.Algorithm] = float64(r.Events) / est
		}
		e.simDone += float64(r.Events) + simOverhead
		e.spent[0] += now.Sub(e.prev)
	}
	e.prev = now
}

// remaining is the time the run has left, and false while nothing is
// known to base it on.
func (e *eta) remaining() (time.Duration, bool) {
	var left float64 // seconds
	var simEvents float64
	trials := 0
	for alg, n := range e.simCount {
		if n <= 0 {
			continue
		}
		c, ok := e.corr[alg]
		if !ok {
			c = 1
		}
		simEvents += e.simLeft[alg] * c
		trials += n
	}
	if simEvents > 0 || trials > 0 {
		if e.simDone == 0 {
			return 0, false
		}
		left += e.spent[0].Seconds() / e.simDone * (simEvents + simOverhead*float64(trials))
	}
	if e.liveLeft > 0 {
		if e.liveDone > 0 {
			left += e.spent[1].Seconds() / e.liveDone * e.liveLeft
		} else {
			left += liveSecondsPerCost * e.liveLeft
		}
	}
	if e.simDone == 0 && e.liveDone == 0 {
		return 0, false
	}
	return time.Duration(left * float64(time.Second)), true
}
