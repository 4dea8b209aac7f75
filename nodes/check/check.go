package check

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// Violation is one breach of safety or liveness, with when and who.
type Violation struct {
	At     time.Duration
	Kind   string // wrong-leader, disagreement, normal-disagreement, undecided
	Procs  []int  // positions involved
	Detail string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s at %v: %s", v.Kind, v.At, v.Detail)
}

// maxRecorded bounds the violations kept per trial: a broken run on a large
// ring could otherwise record one per process. The count stays exact.
const maxRecorded = 16

// Checker watches one trial through its events (it is a trial.Sink, fed by
// either runtime) and judges it.
//
// Safety, as the run goes (ALGORITHMS.md; the bully issue):
//   - wrong-leader: a process decides on a leader while a process of higher
//     rank is alive;
//   - disagreement: live processes believe different live leaders at once;
//   - normal-disagreement (nodes.Phased algorithms): two processes in the
//     Normal phase believe different leaders.
//
// Correct, at the end: every non-faulty process decided, all decided the
// same leader, and that leader is the non-faulty process of highest rank.
type Checker struct {
	ranks   []nodes.Rank
	alive   []bool
	dead    map[nodes.Rank]bool // ranks of crashed processes
	highest nodes.Rank          // highest live rank
	belief  []nodes.Rank        // by position: current decision (zero: none)
	// believers counts live processes by the live leader they believe in;
	// more than one key is a disagreement.
	believers map[nodes.Rank]int
	phase     []string           // by position, for nodes.Phased machines
	normal    map[nodes.Rank]int // live processes in Normal by belief
	count     int
	list      []Violation
	quorum    *quorumWatch // set by WatchQuorum for a quorum algorithm (quorum.go)
	mutex     *mutexWatch  // set by WatchMutex for a mutual-exclusion algorithm (mutex.go)
}

// New prepares a checker for a run over ranks (by position).
func New(ranks []nodes.Rank) *Checker {
	c := &Checker{ranks: ranks, alive: make([]bool, len(ranks)), dead: map[nodes.Rank]bool{},
		belief: make([]nodes.Rank, len(ranks)), believers: map[nodes.Rank]int{}}
	for i := range c.alive {
		c.alive[i] = true
	}
	c.recomputeHighest()
	return c
}

// Kinds is what the checker listens to: decisions, crashes, restarts and
// phases, and for a quorum algorithm every send and delivery.
func (c *Checker) Kinds() trial.Kinds {
	k := trial.KindsOf(trial.EvDecide, trial.EvCrash, trial.EvRestart, trial.EvPhase)
	if c.quorum != nil || c.mutex != nil && c.mutex.vc != nil {
		k |= trial.KindsOf(trial.EvSend, trial.EvRecv)
	}
	if c.mutex != nil {
		k |= trial.KindsOf(trial.EvFault)
	}
	return k
}

// ReadsRanks says the checker reads a message's kind and counters only
// (trial.RankReader).
func (c *Checker) ReadsRanks() bool { return false }

// Event feeds the checker one event of the trial, in time order.
func (c *Checker) Event(e *trial.Event) {
	if c.mutex != nil && c.mutex.vc != nil && (e.Kind == trial.EvSend || e.Kind == trial.EvRecv) {
		c.mutexMessage(e)
		return
	}
	switch e.Kind {
	case trial.EvFault:
		if c.mutex != nil {
			c.mutex.faulted = true
		}
	case trial.EvDecide:
		c.Decided(e.At, int(e.P), e.Leader)
	case trial.EvCrash:
		c.Crashed(e.At, int(e.P))
	case trial.EvRestart:
		c.Restarted(e.At, int(e.P))
	case trial.EvPhase:
		c.Phase(e.At, int(e.P), e.Phase)
	case trial.EvSend:
		c.Sent(e.At, int(e.P), e.Msg)
	case trial.EvRecv:
		c.Delivered(e.At, int(e.Q), int(e.P), e.Msg)
	}
}

func (c *Checker) recomputeHighest() {
	c.highest = nodes.Rank{}
	for i, r := range c.ranks {
		if c.alive[i] && c.highest.Less(r) {
			c.highest = r
		}
	}
}

func (c *Checker) record(v Violation) {
	c.count++
	if len(c.list) < maxRecorded {
		c.list = append(c.list, v)
	}
}

// Decided is called by the runtime on every decision.
func (c *Checker) Decided(at time.Duration, p int, leader nodes.Rank) {
	if c.mutex != nil {
		c.belief[p] = leader // the coordinator (central); no election checks
		return
	}
	if c.quorum != nil {
		defer c.updateKnown(at) // and no wrong-leader or disagreement check (quorum.go)
	}
	if c.quorum == nil && leader.Less(c.highest) {
		c.record(Violation{At: at, Kind: "wrong-leader", Procs: []int{p},
			Detail: fmt.Sprintf("process %d (id %s) decided %s while %s is alive", p, c.ranks[p], leader, c.highest)})
	}
	old := c.belief[p]
	c.belief[p] = leader
	if c.phase != nil && c.phase[p] == nodes.PhaseNormal {
		c.leaveNormal(old)
		c.enterNormal(at, p, leader)
	}
	c.unbelieve(old)
	if c.dead[leader] {
		return // a stale belief in a crashed leader disagrees with nobody alive
	}
	c.believers[leader]++
	if c.quorum == nil && c.believers[leader] == 1 && len(c.believers) > 1 {
		var other nodes.Rank
		for r := range c.believers {
			if r != leader && (other.IsZero() || other.Less(r)) {
				other = r
			}
		}
		c.record(Violation{At: at, Kind: "disagreement", Procs: []int{p},
			Detail: fmt.Sprintf("process %d decided %s while live processes believe %s", p, leader, other)})
	}
}

func (c *Checker) unbelieve(r nodes.Rank) {
	if r.IsZero() || c.dead[r] {
		return
	}
	if c.believers[r]--; c.believers[r] <= 0 {
		delete(c.believers, r)
	}
}

// Crashed is called by the runtime on every crash.
func (c *Checker) Crashed(at time.Duration, p int) {
	if !c.alive[p] {
		return
	}
	if c.mutex != nil {
		c.mutexCrashed(p)
	}
	c.unbelieve(c.belief[p])
	if c.phase != nil && c.phase[p] == nodes.PhaseNormal {
		c.leaveNormal(c.belief[p])
	}
	c.alive[p] = false
	c.dead[c.ranks[p]] = true
	delete(c.believers, c.ranks[p]) // nobody alive can follow a dead leader
	c.recomputeHighest()
	if c.quorum != nil {
		c.updateKnown(at)
	}
}

// Phase is called after every event of a nodes.Phased process.
func (c *Checker) Phase(at time.Duration, p int, phase string) {
	if c.phase == nil {
		c.phase = make([]string, len(c.ranks))
		c.normal = map[nodes.Rank]int{}
	}
	old := c.phase[p]
	if c.mutex != nil {
		c.mutexPhase(at, p, old, phase)
		c.phase[p] = phase
		return
	}
	if old == phase || !c.alive[p] {
		c.phase[p] = phase
		return
	}
	c.phase[p] = phase
	if old == nodes.PhaseNormal {
		c.leaveNormal(c.belief[p])
	}
	if phase == nodes.PhaseNormal {
		c.enterNormal(at, p, c.belief[p])
	}
}

func (c *Checker) leaveNormal(r nodes.Rank) {
	if r.IsZero() {
		return
	}
	if c.normal[r]--; c.normal[r] <= 0 {
		delete(c.normal, r)
	}
}

// enterNormal counts p as Normal with belief r; two processes in Normal
// with different leaders break the two-phase invariant.
func (c *Checker) enterNormal(at time.Duration, p int, r nodes.Rank) {
	if r.IsZero() {
		return
	}
	c.normal[r]++
	if c.normal[r] == 1 && len(c.normal) > 1 {
		c.record(Violation{At: at, Kind: "normal-disagreement", Procs: []int{p},
			Detail: fmt.Sprintf("process %d is Normal with leader %s while other Normal processes have another leader", p, r)})
	}
}

// Verdict is the checker's judgement of a finished trial.
type Verdict struct {
	Correct    bool
	Live       bool
	Leader     string // the leader all live processes decided; "" if they did not agree
	Violations int    // safety violations (liveness failures are reported by Live)
	Recorded   []Violation
	DecidedAt  time.Duration // latest decision among live processes
	// Quorum algorithms only (quorum.go): Perpetual is set, Terms lists
	// every term with a ballot in order, KnownAt every instant at which a
	// live leader became known by a majority.
	Perpetual bool
	Terms     []Term
	KnownAt   []time.Duration
	// Mutual-exclusion algorithms only (mutex.go): Mutex is set and
	// Entries lists every passage through the critical section.
	Mutex   bool
	Entries []Entry
}

// Finish judges the trial from each process's final decision. quiescent says
// whether the run came to rest before its deadline. Processes that crashed
// are the faulty ones.
func (c *Checker) Finish(decisions []trial.Decision, quiescent bool, end time.Duration) Verdict {
	if c.quorum != nil {
		return c.finishQuorum(decisions, end) // never quiescent: judged at the deadline
	}
	if c.mutex != nil {
		return c.finishMutex(decisions, quiescent, end)
	}
	v := Verdict{}
	allDecided, agree := true, true
	var leader nodes.Rank
	first := -1
	for p, d := range decisions {
		if !c.alive[p] {
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
	v.Violations = c.count
	v.Recorded = c.list
	if !allDecided {
		v.Recorded = append(v.Recorded, Violation{At: end, Kind: "undecided",
			Detail: "a live process never learned a leader"})
	} else if !quiescent {
		v.Recorded = append(v.Recorded, Violation{At: end, Kind: "unsettled",
			Detail: "the run was still busy at its deadline"})
	}
	return v
}
