package shrink

import (
	"context"
	"fmt"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
)

// Step is one change the shrinker kept, for progress.
type Step struct {
	Pass   string // the pass that made it
	What   string // the change, for people
	Tried  int    // candidates run so far
	Faults int    // faults of the scenario now
	Nodes  string // its size now
}

// Result is a shrink's outcome: the smallest scenario found that still
// fails the same way, its run, and what it took.
type Result struct {
	Scenario    *chaos.Scenario // with TraceHash set
	Outcome     *Outcome
	Violation   Violation
	Steps       []Step
	Tried       int  // candidates run
	Interrupted bool // ctx ended: Scenario is the best so far
	// Arms are the shrunk trial's timer arms, for its fault story
	// (reports.Story.Arms).
	Arms []reports.TimerArm
	// Draws is what the draws pass did, run once the other passes keep
	// nothing.
	Draws DrawsShrunk
}

// shrinker holds the best scenario so far and the candidates tried.
type shrinker struct {
	ctx      context.Context
	v        Violation
	best     *chaos.Scenario
	out      *Outcome
	seen     map[string]bool // candidates run, by their file's text
	tried    int
	steps    []Step
	progress func(Step)
	pass     string // the pass running, for its steps
}

// pass proposes changes to the best scenario; it returns true once one
// was kept (the shrinker then runs it again, to a fixed point).
type pass struct {
	name string
	run  func(s *shrinker) bool
}

// passes run in this order, the cheapest and biggest first.
var passes = []pass{
	{"drop faults", dropFaults},
	{"drop heals", dropHeals},
	{"shorten faults", shortenFaults},
	{"simpler triggers", simplerTriggers},
	{"fewer processes", fewerNodes},
	{"fewer initiators", fewerInitiators},
	{"constant latency", constantLatency},
	{"simpler parameters", simplerParams},
	{"shorter deadline", shorterDeadline},
	{"smaller seed", smallerSeed},
}

// Shrink minimises p's scenario while p's violation still occurs. It is
// deterministic: the same scenario shrinks to the same file. progress,
// when set, is told each change kept. When ctx ends it returns the best
// scenario so far, Interrupted.
func Shrink(ctx context.Context, p *Picked, progress func(Step)) (*Result, error) {
	s := &shrinker{ctx: ctx, v: p.Violation, best: p.Scenario, out: p.Outcome, seen: map[string]bool{}, progress: progress}
	if b, err := chaos.Format(p.Scenario); err == nil {
		s.seen[string(b)] = true
	}
	for changed := true; changed && ctx.Err() == nil; {
		changed = false
		for _, ps := range passes {
			s.pass = ps.name
			for ctx.Err() == nil && ps.run(s) {
				changed = true
			}
		}
	}
	var drawn DrawsShrunk
	if ctx.Err() == nil {
		var err error
		if drawn, err = shrinkDraws(s); err != nil {
			return nil, err
		}
	}
	res := &Result{Outcome: s.out, Violation: s.v, Steps: s.steps, Tried: s.tried, Interrupted: ctx.Err() != nil, Draws: drawn}
	final, err := clone(s.best)
	if err != nil {
		return nil, err
	}
	final.TraceHash = s.out.Hash
	final.Description = fmt.Sprintf("The smallest run electbench shrink found that still fails %s: %s.", s.v, s.out.Row.Violation)
	if s.out.Row.Violation == "" {
		final.Description = fmt.Sprintf("The smallest run electbench shrink found that still fails %s.", s.v)
	}
	res.Scenario = final
	if res.Arms, err = timerArms(ctx, s.best); err != nil {
		return nil, err
	}
	return res, nil
}

// try runs the scenario change makes of a copy of the best one, and keeps
// it when the violation still occurs. A change that yields a scenario
// already run, or one the parser or the workload refuses (a selector that
// no longer resolves), is no candidate.
func (s *shrinker) try(what string, change func(c *chaos.Scenario) bool) bool {
	if s.ctx.Err() != nil {
		return false
	}
	c, err := clone(s.best)
	if err != nil || !change(c) {
		return false
	}
	b, err := chaos.Format(c)
	if err != nil || s.seen[string(b)] {
		return false
	}
	s.seen[string(b)] = true
	ran, o, err := runScenario(s.ctx, c)
	if err != nil {
		return false // refused: not a scenario that runs
	}
	s.tried++
	if !s.v.HeldBy(o) {
		return false
	}
	s.best, s.out = ran, o
	step := Step{Pass: s.pass, What: what, Tried: s.tried, Faults: len(ran.Faults), Nodes: ran.Nodes}
	s.steps = append(s.steps, step)
	if s.progress != nil {
		s.progress(step)
	}
	return true
}

func (st Step) String() string {
	return fmt.Sprintf("%s: %s (%d tried; now %d faults, N=%s)", st.Pass, st.What, st.Tried, st.Faults, st.Nodes)
}
