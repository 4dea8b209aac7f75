package workloads

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// CrashSpec is one --crash SELECTOR[@WHEN]: sugar for a scenario's crash
// fault, `{kind: crash, target: SELECTOR, at: WHEN}`, with chaos's
// selectors and triggers (docs/scenarios.md), resolved when the crash
// happens, against the run as it is then:
//
//	highest, lowest, would-be-leader (the highest live process), leader
//	(whom the latest decision named), initiator, a position (3 or index:3),
//	random(k) (k live processes, from the fault stream), all, successor(x),
//	and comma-separated unions of these
//
// WHEN is start (the default: crashed before the run; at time 0 exactly
// the initiators' detectors suspect it), a time (5ms, 3T), election-start,
// leader-elected or after-messages(K), each optionally +DELAY and then
// +uniform(A,B), a random offset drawn from the fault stream;
// after-messages:K is the flag's older spelling of after-messages(K).
type CrashSpec struct {
	Fault chaos.Fault
	text  string
}

func (c CrashSpec) String() string { return c.text }

// ParseCrash reads one --crash value.
func ParseCrash(s string) (CrashSpec, error) {
	s = strings.TrimSpace(s)
	sel, when, hasWhen := strings.Cut(s, "@")
	target, err := chaos.ParseSelector(sel)
	if err != nil {
		return CrashSpec{}, fmt.Errorf("--crash %q: %w", s, err)
	}
	start := chaos.Trigger{Kind: chaos.AtStart}
	if hasWhen {
		if k, ok := strings.CutPrefix(strings.TrimSpace(when), "after-messages:"); ok {
			when = "after-messages(" + k + ")"
		}
		if start, err = chaos.ParseTrigger(when); err != nil {
			return CrashSpec{}, fmt.Errorf("--crash %q: %w", s, err)
		}
	}
	if target.Names("leader") && start.Immediate() {
		return CrashSpec{}, fmt.Errorf("--crash %q: there is no leader before the run; use would-be-leader or highest, or a later WHEN", s)
	}
	return CrashSpec{Fault: chaos.Fault{Kind: "crash", Target: target, Start: start}, text: s}, nil
}

// atStart reports whether the crash happens before the run begins.
func (c CrashSpec) atStart() bool {
	return c.Fault.Start.Immediate()
}

// compile is the crash as the fault timeline runs it: a quiet crash fault
// (in the faults column, not traced as a scenario's fault).
func (c CrashSpec) compile(T time.Duration) trial.Fault {
	tf := c.Fault.Compile(T)
	tf.Quiet = true
	return tf
}

// checkCrashes refuses crashes that can match no process of a run of n,
// or that leave no process alive, before anything runs. Selectors resolve
// against a world in which every crash so far has happened: what a run
// would do when they all come at the start.
func checkCrashes(specs []CrashSpec, ranks nodes.Ranks, initiators []int) error {
	n := ranks.Len()
	w := &planWorld{ranks: ranks, initiators: initiators, alive: make([]bool, n)}
	for i := range w.alive {
		w.alive[i] = true
	}
	for _, c := range specs {
		if err := c.Fault.Target.Check(n); err != nil {
			return fmt.Errorf("--crash %q: %w", c, err)
		}
		if c.Fault.Target.Names("initiator") && len(initiators) == 0 {
			return fmt.Errorf("--crash %q: no process initiates, so no initiator to crash", c)
		}
		for _, p := range c.Fault.Targets(w) {
			w.alive[p] = false
		}
	}
	for _, a := range w.alive {
		if a {
			return nil
		}
	}
	return fmt.Errorf("--crash: every process would crash")
}

// planWorld is a run before it starts, as checkCrashes resolves the
// crashes against it: nobody has decided, and random draws come from a
// fixed stream (any k distinct processes will do for the check).
type planWorld struct {
	ranks      nodes.Ranks
	initiators []int
	alive      []bool
}

func (w *planWorld) N() int                { return w.ranks.Len() }
func (w *planWorld) Rank(p int) nodes.Rank { return w.ranks.At(p) }
func (w *planWorld) Alive(p int) bool      { return w.alive[p] }
func (w *planWorld) Leader() int           { return -1 }
func (w *planWorld) Initiators() []int     { return w.initiators }
func (w *planWorld) Rand() *rand.Rand      { return trial.FaultRand(0) }
func (w *planWorld) Now() time.Duration    { return 0 }
