package harness

import "github.com/electbench/electbench/nodes/trial"

// passedBudget stops a runaway trial as the simulator would (issue 21): once
// its machines have handled more events than the events budget allows, or
// more messages are in flight — written by one machine, not yet delivered
// to another, as the step lines tell — than the in-flight budget allows,
// the trial ends with a trial.BudgetError and the counts reached. Timers
// armed, which the simulator also counts as pending, are not: a live
// timer costs the harness nothing.
func (lt *liveTrial) passedBudget() bool {
	if lt.overBudget != nil {
		return true
	}
	l := &lt.log
	var what string
	var limit int64
	switch {
	case l.steps > lt.budget.MaxEvents:
		what, limit = trial.BudgetEvents, lt.budget.MaxEvents
	case l.inFlight > lt.budget.MaxInFlight:
		what, limit = trial.BudgetInFlight, lt.budget.MaxInFlight
	default:
		return false
	}
	lt.overBudget = &trial.BudgetError{What: what, Limit: limit, At: lt.now(), Events: l.steps, Pending: l.inFlight}
	return true
}
