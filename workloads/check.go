package workloads

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/sim"
)

// Violation is one breach of safety or liveness, with when and who.
type Violation struct {
	At     time.Duration
	Kind   string // wrong-leader, disagreement, undecided
	Procs  []int  // positions involved
	Detail string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s at %v: %s", v.Kind, v.At, v.Detail)
}

// maxRecorded bounds the violations kept per trial: a broken run on a large
// ring could otherwise record one per process. The count stays exact.
const maxRecorded = 16

// Checker watches one trial (it is the simulator's Observer) and judges the
// outcome against ALGORITHMS.md's definition of correct: every non-faulty
// process decided, all decided the same leader, and that leader is the
// non-faulty process of highest rank.
type Checker struct {
	ranks   []nodes.Rank
	faulty  []bool // by position; nil means nobody is faulty
	highest nodes.Rank
	count   int
	list    []Violation
}

// NewChecker prepares a checker for a run over ranks (by position), with the
// given positions crash-faulty.
func NewChecker(ranks []nodes.Rank, faulty []bool) *Checker {
	c := &Checker{ranks: ranks, faulty: faulty}
	for i, r := range ranks {
		if !c.isFaulty(i) && c.highest.Less(r) {
			c.highest = r
		}
	}
	return c
}

func (c *Checker) isFaulty(p int) bool { return c.faulty != nil && c.faulty[p] }

func (c *Checker) record(v Violation) {
	c.count++
	if len(c.list) < maxRecorded {
		c.list = append(c.list, v)
	}
}

// Decided is called by the runtime on every decision. Deciding on anyone but
// the highest non-faulty process is a safety violation at that instant.
func (c *Checker) Decided(at time.Duration, p int, leader nodes.Rank) {
	if leader != c.highest {
		c.record(Violation{At: at, Kind: "wrong-leader", Procs: []int{p},
			Detail: fmt.Sprintf("process %d (id %s) decided %s while %s is the highest non-faulty process", p, c.ranks[p], leader, c.highest)})
	}
}

// Verdict is the checker's judgement of a finished trial.
type Verdict struct {
	Correct    bool
	Live       bool
	Leader     string // the leader all non-faulty processes decided; "" if they did not agree
	Violations int    // safety violations (liveness failures are reported by Live)
	Recorded   []Violation
	DecidedAt  time.Duration // latest decision among non-faulty processes
}

// Finish judges the trial from each process's final decision. quiescent says
// whether the run came to rest before its deadline.
func (c *Checker) Finish(decisions []sim.Decision, quiescent bool, end time.Duration) Verdict {
	v := Verdict{}
	allDecided, agree := true, true
	var leader nodes.Rank
	first := -1
	for p, d := range decisions {
		if c.isFaulty(p) {
			continue
		}
		if d.Count == 0 {
			allDecided = false
			continue
		}
		v.DecidedAt = max(v.DecidedAt, d.At)
		if first < 0 {
			first, leader = p, d.Leader
		} else if d.Leader != leader && agree {
			agree = false
			c.record(Violation{At: end, Kind: "disagreement", Procs: []int{first, p},
				Detail: fmt.Sprintf("processes %d and %d ended believing different leaders (%s and %s)", first, p, leader, d.Leader)})
		}
	}
	if allDecided && agree && first >= 0 {
		v.Leader = leader.String()
	}
	v.Correct = allDecided && agree && first >= 0 && leader == c.highest
	v.Live = allDecided && quiescent
	if !allDecided {
		v.Recorded = append(v.Recorded, Violation{At: end, Kind: "undecided",
			Detail: "a non-faulty process never learned a leader"})
	}
	v.Violations = c.count
	v.Recorded = append(c.list, v.Recorded...)
	return v
}
