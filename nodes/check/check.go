package check

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/internal/prefault"
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
	ranks   nodes.Ranks
	alive   []bool
	highest nodes.Rank // highest live rank (lowest, after ElectLowest)
	// dir is 1, or -1 for an algorithm that elects the lowest rank
	// (ElectLowest): which end of the ranks the rightful leader is at; 0
	// when any live process is rightful (ElectAny).
	dir int
	// toDeadline: the algorithm never comes to rest (RunToDeadline).
	toDeadline bool
	// rightful is the number of a leader known not to rank below highest
	// (-1: none), so that the many decisions for one leader compare ranks
	// once; recomputeHighest forgets it.
	rightful int32
	// Beliefs refer to leaders by their number in a table of the distinct
	// ranks the run has decided or crashed (a run of millions of processes
	// decides a handful), so that per-process state is 4 bytes and a
	// decision costs no map operation on its common path.
	leaders trial.RankTable
	belief  []int32 // by position: current decision's leader number + 1 (0: none)
	dead    []bool  // by leader number: the rank's process has crashed
	// believers counts live processes by the number of the live leader they
	// believe in; believed is how many leaders have a believer, more than
	// one being a disagreement.
	believers []int32
	believed  int
	phase     []string           // by position, for nodes.Phased machines
	normal    map[nodes.Rank]int // live processes in Normal by belief
	count     int
	list      []Violation
	beliefs   beliefWatch    // the disruption figures of the families without terms (beliefs.go)
	quorum    *quorumWatch   // set by WatchQuorum for a quorum algorithm (quorum.go)
	mutex     *mutexWatch    // set by WatchMutex for a mutual-exclusion algorithm (mutex.go)
	symmetry  *symmetryWatch // set by WatchSymmetry for an anonymous ring (anonymous.go)
}

// New prepares a checker for a run over ranks (by position).
func New(ranks nodes.Ranks) *Checker {
	n := ranks.Len()
	var c *Checker
	if n <= smallWatch {
		a := &smallChecker{}
		c = &a.c
		*c = Checker{ranks: ranks, alive: a.alive[:n:n], belief: a.belief[:n:n], dir: 1,
			dead: a.dead[:0], believers: a.believers[:0]}
	} else {
		c = &Checker{ranks: ranks, alive: prefault.Make[bool](n), belief: prefault.Make[int32](n), dir: 1}
	}
	for i := range c.alive {
		c.alive[i] = true
	}
	c.beliefs.live = n
	c.recomputeHighest()
	return c
}

// smallChecker is a checker of at most smallWatch processes with its
// arrays: one allocation where a raft trial at N = 5 made three, and room
// for four leaders' state (dead, believers), which grew a leader at a
// time, four more (issue 42).
type smallChecker struct {
	c         Checker
	alive     [smallWatch]bool
	belief    [smallWatch]int32
	dead      [4]bool
	believers [4]int32
}

// leader returns r's number in the leaders table, with room for its
// per-leader state.
func (c *Checker) leader(r *nodes.Rank) int32 {
	i := c.leaders.Index(r)
	if int(i) == len(c.dead) {
		c.dead = append(c.dead, false)
		c.believers = append(c.believers, 0)
	}
	return i
}

// isDead reports whether r is the rank of a crashed process.
func (c *Checker) isDead(r nodes.Rank) bool {
	i, ok := c.leaders.Lookup(&r)
	return ok && c.dead[i]
}

// believe adds one believer to leader number i.
func (c *Checker) believe(i int32) {
	c.beliefs.believing++
	if c.believers[i]++; c.believers[i] == 1 {
		c.believed++
	}
}

// believers reports how many live processes believe in r.
func (c *Checker) believersOf(r nodes.Rank) int32 {
	if i, ok := c.leaders.Lookup(&r); ok {
		return c.believers[i]
	}
	return 0
}

// beliefOf returns p's current belief (the zero rank: none).
func (c *Checker) beliefOf(p int) nodes.Rank {
	if b := c.belief[p]; b != 0 {
		return c.leaders.Rank(b - 1)
	}
	return nodes.Rank{}
}

// Kinds is what the checker listens to: decisions, crashes, restarts and
// phases, for a quorum algorithm every send and delivery, and for one
// whose elections it counts (WatchElections) every send.
func (c *Checker) Kinds() trial.Kinds {
	k := trial.KindsOf(trial.EvDecide, trial.EvCrash, trial.EvRestart, trial.EvPhase)
	if c.quorum != nil || c.mutex != nil && c.mutex.vc != nil {
		k |= trial.KindsOf(trial.EvSend, trial.EvRecv)
	}
	if c.mutex != nil || c.quorum != nil {
		k |= trial.KindsOf(trial.EvFault)
	}
	if c.beliefs.candidacy != 0 || c.symmetry != nil {
		k |= trial.KindsOf(trial.EvSend)
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
	if c.symmetry != nil {
		c.symmetryEvent(e)
	}
	switch e.Kind {
	case trial.EvFault:
		if c.mutex != nil {
			c.mutex.faulted = true
		}
		if c.quorum != nil {
			c.quorum.disrupt.fault(e.At, e.What)
		}
	case trial.EvDecide:
		c.decided(e.At, int(e.P), &e.Leader)
	case trial.EvCrash:
		c.Crashed(e.At, int(e.P))
	case trial.EvRestart:
		c.Restarted(e.At, int(e.P))
	case trial.EvPhase:
		c.Phase(e.At, int(e.P), e.Phase)
	case trial.EvSend:
		c.beliefs.sent(e.At, int(e.P), &e.Msg)
		c.sent(e.At, int(e.P), &e.Msg)
	case trial.EvRecv:
		c.delivered(e.At, int(e.Q), int(e.P), &e.Msg)
	}
}

// EventDecide is Event of a decision (trial.DecisionSink).
func (c *Checker) EventDecide(at time.Duration, p int32, leader *nodes.Rank) {
	c.decided(at, int(p), leader)
}

// ElectAny makes any live process a rightful leader, for a randomized
// election (nodes.Algorithm.ElectsAny): no decision is the wrong leader,
// and a run is correct when every live process decided the same live one.
func (c *Checker) ElectAny() {
	c.dir = 0
}

// RunToDeadline is for an election algorithm that never comes to rest
// without being a quorum algorithm (nodes.Algorithm.Restless: a library
// whose candidates poll a lease store for ever): its trial is judged where
// the deadline ended it, as a quorum algorithm's is, and live when every
// live process decided, without having come to rest.
func (c *Checker) RunToDeadline() {
	c.toDeadline = true
}

// ElectLowest makes the lowest live rank the rightful leader, for an
// algorithm that elects it (nodes.Algorithm.ElectsLowest): a decision for
// a process while a lower one is alive is then the wrong leader.
func (c *Checker) ElectLowest() {
	c.dir = -1
	c.recomputeHighest()
}

// recomputeHighest finds the highest live rank (Ranks.Extreme), or the
// lowest after ElectLowest: a checker of ten million processes starts with
// this pass.
func (c *Checker) recomputeHighest() {
	c.highest = nodes.Rank{}
	c.rightful = -1
	if best := c.ranks.Extreme(c.dir, c.alive); best >= 0 {
		c.highest = c.ranks.At(best)
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
	c.decided(at, p, &leader)
}

// decided is Decided reading the leader where it lies (an event's), as a
// run decides once per process or more.
func (c *Checker) decided(at time.Duration, p int, rank *nodes.Rank) {
	if c.mutex != nil {
		c.belief[p] = c.leader(rank) + 1 // the coordinator (central); no election checks
		return
	}
	if c.symmetry != nil {
		c.symmetry.fold(int32(p), at, 2)
	}
	i := c.leader(rank)
	if c.quorum != nil {
		defer c.updateKnown(at) // and no wrong-leader or disagreement check (quorum.go)
		c.quorum.disrupt.advance(at)
		c.quorum.disruptDecided(at, p, rank, i)
	}
	if c.quorum == nil && i != c.rightful {
		if rank.Cmp(&c.highest)*c.dir < 0 {
			c.record(Violation{At: at, Kind: "wrong-leader", Procs: []int{p},
				Detail: fmt.Sprintf("process %d (id %s) decided %s while %s is alive", p, c.ranks.At(p), *rank, c.highest)})
		} else {
			c.rightful = i
		}
	}
	old := c.belief[p] // the previous leader's number + 1 (0: none)
	changed := c.quorum == nil && old != i+1
	if changed {
		c.beliefChanged(at, p, old, i+1)
	}
	c.belief[p] = i + 1
	if c.phase != nil && c.phase[p] == nodes.PhaseNormal {
		var was nodes.Rank
		if old != 0 {
			was = c.leaders.Rank(old - 1)
		}
		c.leaveNormal(was)
		c.enterNormal(at, p, *rank)
	}
	if old != 0 {
		c.unbelieveNumber(old - 1)
	}
	if c.dead[i] {
		if changed {
			c.beliefs.reacknowledge(c.believed)
		}
		return // a stale belief in a crashed leader disagrees with nobody alive
	}
	c.believe(i)
	if changed {
		c.beliefs.reacknowledge(c.believed)
	}
	if c.quorum == nil && c.believers[i] == 1 && c.believed > 1 {
		var other nodes.Rank
		for j, n := range c.believers {
			if r := c.leaders.Rank(int32(j)); n > 0 && r != *rank && (other.IsZero() || other.Less(r)) {
				other = r
			}
		}
		c.record(Violation{At: at, Kind: "disagreement", Procs: []int{p},
			Detail: fmt.Sprintf("process %d decided %s while live processes believe %s", p, *rank, other)})
	}
}

func (c *Checker) unbelieve(r nodes.Rank) {
	if r.IsZero() {
		return
	}
	if i, ok := c.leaders.Lookup(&r); ok {
		c.unbelieveNumber(i)
	}
}

// unbelieveNumber takes one believer from leader number i, unless it is
// the zero rank, which nobody holds and nobody is counted as believing.
func (c *Checker) unbelieveNumber(i int32) {
	if c.dead[i] || c.believers[i] == 0 || c.leaders.Rank(i).IsZero() {
		return
	}
	c.beliefs.believing--
	if c.believers[i]--; c.believers[i] == 0 {
		c.believed--
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
	c.beliefs.account(at)
	if c.isSelf(p, c.belief[p]) {
		c.beliefs.selfLed--
	}
	belief := c.beliefOf(p)
	c.unbelieve(belief)
	if c.phase != nil && c.phase[p] == nodes.PhaseNormal {
		c.leaveNormal(belief)
	}
	c.alive[p] = false
	r := c.ranks.At(p)
	i := c.leader(&r)
	c.dead[i] = true
	if c.believers[i] > 0 { // nobody alive can follow a dead leader
		c.beliefs.believing -= int(c.believers[i])
		c.believers[i] = 0
		c.believed--
	}
	c.beliefs.live--
	c.beliefs.reacknowledge(c.believed)
	c.recomputeHighest()
	if c.quorum != nil {
		c.updateKnown(at)
		c.quorum.disrupt.advance(at)
		c.quorum.disrupt.crashed(at, p)
	}
}

// Phase is called after every event of a nodes.Phased process.
func (c *Checker) Phase(at time.Duration, p int, phase string) {
	if c.serverRole(at, p, phase) {
		return
	}
	if c.phase == nil {
		c.phase = make([]string, c.ranks.Len())
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
		c.leaveNormal(c.beliefOf(p))
	}
	if phase == nodes.PhaseNormal {
		c.enterNormal(at, p, c.beliefOf(p))
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
	Perpetual  bool
	Terms      []Term
	KnownAt    []time.Duration
	Disruption Disruption
	// Mutual-exclusion algorithms only (mutex.go): Mutex is set and
	// Entries lists every passage through the critical section.
	Mutex   bool
	Entries []Entry
}

// Finish judges the trial from each process's final decision. quiescent says
// whether the run came to rest before its deadline. Processes that crashed
// are the faulty ones.
func (c *Checker) Finish(decisions *trial.Decisions, quiescent bool, end time.Duration) Verdict {
	if c.quorum != nil {
		return c.finishQuorum(decisions, end) // never quiescent: judged where it ended (settled, or its deadline)
	}
	if c.mutex != nil {
		return c.finishMutex(decisions, quiescent, end)
	}
	v := Verdict{}
	a := c.agreement(decisions)
	v.DecidedAt, v.Leader = a.At, leaderText(a)
	allDecided, agree, leader := a.All, a.Agree, a.Leader
	if !agree {
		c.record(Violation{At: end, Kind: "disagreement", Procs: []int{a.First, a.Dissent},
			Detail: fmt.Sprintf("processes %d and %d ended believing different leaders (%s and %s)", a.First, a.Dissent, leader, decisions.Get(a.Dissent).Leader)})
	}
	rightful := leader == c.highest || c.dir == 0 && !leader.IsZero() && !c.isDead(leader)
	v.Correct = allDecided && agree && a.First >= 0 && rightful
	quiescent = quiescent || c.toDeadline
	v.Live = allDecided && quiescent
	v.Violations = c.count
	v.Recorded = c.list
	v.Disruption = c.beliefs.figures(end)
	if !allDecided {
		v.Recorded = append(v.Recorded, Violation{At: end, Kind: "undecided",
			Detail: "a live process never learned a leader"})
	} else if !quiescent {
		v.Recorded = append(v.Recorded, Violation{At: end, Kind: "unsettled",
			Detail: "the run was still busy at its deadline"})
	}
	if c.symmetry != nil {
		c.finishSymmetry(&v, decisions, end)
	}
	return v
}

// leaderText is the leader column: the leader every live process decided,
// "" when some did not or they disagree.
func leaderText(a trial.Agreement) string {
	if a.All && a.Agree && a.First >= 0 {
		return a.Leader.String()
	}
	return ""
}

// agreement reads the decisions of the processes alive at the end.
func (c *Checker) agreement(d *trial.Decisions) trial.Agreement { return d.Agreement(c.alive) }
