package live

import (
	"time"

	"github.com/electbench/electbench/nodes"
)

// timers are the machine's timers, real ones: each expiry is posted to the
// node's goroutine with the generation it was armed in, and one that finds
// its timer cancelled or re-armed since is ignored. Generations only grow,
// across the trials of a kept cluster too, so an expiry queued in one
// trial never fires in the next. Only the node's goroutine touches them.
type timers struct {
	m     map[nodes.TimerID]*timer
	armed int              // how many are armed now (step lines)
	post  func(event) bool // to the node's goroutine
}

type timer struct {
	gen   uint64
	armed bool
	t     *time.Timer
}

// set arms t to expire after d, replacing its pending expiry.
func (ts *timers) set(d time.Duration, t nodes.TimerID) {
	tm := ts.m[t]
	if tm == nil {
		tm = &timer{}
		ts.m[t] = tm
	}
	if tm.t != nil {
		tm.t.Stop()
	}
	if !tm.armed {
		ts.armed++
	}
	tm.gen++
	tm.armed = true
	gen := tm.gen
	tm.t = time.AfterFunc(max(d, 0), func() { ts.post(event{kind: evTimer, timer: t, gen: gen}) })
}

func (ts *timers) cancel(t nodes.TimerID) {
	if tm := ts.m[t]; tm != nil && tm.armed {
		tm.t.Stop()
		tm.gen++
		tm.armed = false
		ts.armed--
	}
}

// expire says whether the expiry of t armed in generation gen stands, and
// disarms t if so.
func (ts *timers) expire(t nodes.TimerID, gen uint64) bool {
	tm := ts.m[t]
	if tm == nil || !tm.armed || tm.gen != gen {
		return false // cancelled or re-armed since
	}
	tm.armed = false
	ts.armed--
	return true
}

// disarm stops every timer for the next trial; an expiry already queued
// finds its generation gone.
func (ts *timers) disarm() {
	for _, tm := range ts.m {
		if tm.t != nil {
			tm.t.Stop()
		}
		tm.gen++
		tm.armed = false
	}
	ts.armed = 0
}

// stop stops every timer when the node stops.
func (ts *timers) stop() {
	for _, tm := range ts.m {
		if tm.t != nil {
			tm.t.Stop()
		}
	}
}
