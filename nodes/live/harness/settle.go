package harness

import (
	"fmt"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// settling is what decides that a live trial is over before its
// deadline: its rest, and its budget. Kept up to date event by event, so
// that checking whether the run has settled costs nothing: links (to a
// process that runs) with messages written but not delivered, and running
// processes with timers armed or commands unanswered (recount after
// changes to gone or lossy). It reads the processes' state and the links'
// counts; it changes neither.
type settling struct {
	procs          *procs
	links          *links
	armed          []int // per position: timers armed
	expect         []int // per position: commands sent whose step has not come back
	unsettledLinks int
	busyProcs      int
	lastCore       time.Duration
	quiet          time.Duration // how long a heartbeat run must be quiet
	quiescent      bool
	// ownClocks: the algorithm is a library keeping clocks of its own
	// (nodes.Library), which no step line shows armed: it is never at rest.
	ownClocks bool
	// rule ends a quorum trial once its election is over for good
	// (trial.Settling), judged on decisions, the processes' latest
	// beliefs as their steps report them; nil: it runs to its deadline.
	rule       *trial.Settling
	decisions  trial.Decisions
	settled    bool               // the settling rule ended the trial
	atDeadline string             // what had not settled when the deadline passed
	budget     trial.Budget       // trial.Config.BudgetOrDefault
	overBudget *trial.BudgetError // set when the machines passed it (passedBudget)
	// stepFailed: a node reported that its machine failed (an external
	// program's step): the trial failed, whatever had not settled.
	stepFailed bool
}

// init sizes the per-position counts once the processes are identified.
func (s *settling) init(n int) {
	s.armed, s.expect = make([]int, n), make([]int, n)
}

// procBusy reports whether running process p has work pending.
func (s *settling) procBusy(p int) bool {
	return !s.procs.gone[p] && (s.armed[p] > 0 || s.expect[p] > 0)
}

// busy applies change to process p's counts, keeping busyProcs right.
func (s *settling) busy(p int, change func()) {
	if s.procBusy(p) {
		s.busyProcs--
	}
	change()
	if s.procBusy(p) {
		s.busyProcs++
	}
}

// linkBusy reports whether link k (from*n+to) holds messages that will
// still be delivered.
func (s *settling) linkBusy(k int) bool {
	ls := s.links
	return !s.procs.gone[k%ls.n] && !ls.lossy[k] && ls.sent[k] != ls.recv[k]
}

// count applies change to link k's counts, keeping unsettledLinks right.
func (s *settling) count(k int, change func()) {
	if s.linkBusy(k) {
		s.unsettledLinks--
	}
	change()
	if s.linkBusy(k) {
		s.unsettledLinks++
	}
}

// recount recomputes the settled bookkeeping after gone or lossy changed.
func (s *settling) recount() {
	ls := s.links
	s.unsettledLinks, s.busyProcs, ls.anyLossy = 0, 0, false
	for k := range ls.sent {
		if s.linkBusy(k) {
			s.unsettledLinks++
		}
		ls.anyLossy = ls.anyLossy || ls.lossy[k]
	}
	for p := range ls.n {
		if s.procBusy(p) {
			s.busyProcs++
		}
	}
}

// quietPeriod is how long nothing may happen before a run whose messages
// may be lost, or whose detector could still notice something, counts as
// settled.
func (s *settling) quietPeriod(T time.Duration) time.Duration {
	q := s.quiet
	if s.links.anyLossy {
		q = max(q, 4*T+20*time.Millisecond)
	}
	return q
}

// atRest reports whether the run has come to rest: no harness action
// pending, no timer armed at a running process, every message written on a
// reliable link to a process that will run again delivered, and, for runs
// that may lose messages or run heartbeats, a quiet period behind it.
func (s *settling) atRest(now, T time.Duration, pending int) bool {
	if s.ownClocks || pending > 0 || len(s.procs.restarting) > 0 || s.busyProcs > 0 || s.unsettledLinks > 0 {
		return false
	}
	q := s.quietPeriod(T)
	return q == 0 || now-s.lastCore >= q
}

// steady reports, when the settling rule is due, whether a quorum trial
// has settled (trial.Settling): nothing of a fault to come or in force
// (faultsSettled), no harness action (a detection) pending, no process
// restarting, and the live processes agreeing on a live leader.
func (s *settling) steady(now time.Duration, faultsSettled bool, pending int) bool {
	quiet := faultsSettled && pending == 0 && len(s.procs.restarting) == 0
	return s.rule.Settled(now, quiet, &s.decisions, s.procs.alive, nodes.RanksOf(s.procs.ranks))
}

// electionEvent tells the settling rule, if any, of an election event now.
func (s *settling) electionEvent(now time.Duration) {
	if s.rule != nil {
		s.rule.Event(now)
	}
}

// passedBudget stops a runaway trial as the simulator would (issue 21): once
// its machines have handled more events than the events budget allows, or
// more messages are in flight — written by one machine, not yet delivered
// to another, as the step lines tell — than the in-flight budget allows,
// the trial ends with a trial.BudgetError and the counts reached. Timers
// armed, which the simulator also counts as pending, are not: a live
// timer costs the harness nothing.
func (s *settling) passedBudget(steps, inFlight int64, now time.Duration) bool {
	if s.overBudget != nil {
		return true
	}
	var what string
	var limit int64
	switch {
	case steps > s.budget.MaxEvents:
		what, limit = trial.BudgetEvents, s.budget.MaxEvents
	case inFlight > s.budget.MaxInFlight:
		what, limit = trial.BudgetInFlight, s.budget.MaxInFlight
	default:
		return false
	}
	s.overBudget = &trial.BudgetError{What: what, Limit: limit, At: now, Events: steps, Pending: inFlight}
	return true
}

// unsettled says what kept a run from settling: messages in flight, timers
// armed, commands unanswered.
func (s *settling) unsettled(pending int) string {
	var what []string
	ls, ps := s.links, s.procs
	n := ls.n
	for i := range n {
		for j := range n {
			if k := i*n + j; !ps.gone[j] && ls.sent[k] != ls.recv[k] {
				what = append(what, fmt.Sprintf("%d→%d: %d written, %d delivered", i, j, ls.sent[k], ls.recv[k]))
			}
		}
	}
	for p := range n {
		if !ps.gone[p] && (s.armed[p] > 0 || s.expect[p] > 0) {
			what = append(what, fmt.Sprintf("process %d: %d timers armed, %d commands unanswered", p, s.armed[p], s.expect[p]))
		}
	}
	for p := range n {
		if ps.paused[p] && ps.alive[p] {
			what = append(what, fmt.Sprintf("process %d paused", p))
		}
	}
	if pending > 0 {
		what = append(what, fmt.Sprintf("%d harness actions pending", pending))
	}
	if len(what) == 0 {
		return "quiet, but not for long enough"
	}
	return strings.Join(what, "; ")
}
