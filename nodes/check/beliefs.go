package check

import (
	"time"

	"github.com/electbench/electbench/nodes"
)

// The disruption figures of the election families without terms (ring,
// bully, multicast; ALGORITHMS.md, "Disruption"), read off the decisions,
// crashes and restarts the checker already follows, and for an algorithm
// with a nodes.Algorithm.Candidacy kind off the sends of that kind. Their
// wire shows no tenure, but every process says whom it believes leads
// (its decision), so:
//
//   - a process leads, as it believes, from its decision for itself until
//     it decides another or crashes; stale_leader_s is the time during
//     which two or more live processes did;
//   - a leader is acknowledged while every live process believes it (the
//     verdict's "all live processes agree", which a run that terminates
//     must reach: there is no majority that suffices); leaderless_s is the
//     time after the first acknowledgement during which none was;
//   - an election is a step in which a process sends the Candidacy kind
//     (bully's ELECTION to every higher process, multicast's to everyone):
//     all its messages of that kind at one instant are one election.
//
// disruptions, heal_disruptions and term_inflation need terms, which
// these families have not: they stay empty.

// beliefWatch is the checker's state for those figures. The checker keeps
// its counts as decisions change beliefs (believe, unbelieveNumber); each
// change costs a few comparisons, as a ring of ten million processes
// decides ten million times.
type beliefWatch struct {
	live int // live processes
	// believing is how many live processes believe a live leader (the
	// sum of Checker.believers); selfLed how many believe themselves.
	believing, selfLed int
	// mark is the last change of either figure's state; acked whether
	// one live leader is believed by every live process, everAcked
	// whether one ever was.
	mark, stale, leaderless time.Duration
	acked, everAcked        bool
	// candidacy is the kind whose sends count elections (0: not counted);
	// last is, by position, when each process last sent it (−1: never).
	candidacy nodes.Kind
	last      []time.Duration
	elections int64
}

// WatchElections prepares the checker to count the elections of an
// algorithm without terms by its Candidacy kind (beliefs.go): it then
// wants the send events (Kinds). It does nothing for an algorithm without
// one.
func (c *Checker) WatchElections(a *nodes.Algorithm) {
	if a.Candidacy == 0 || a.Quorum != nil || a.Mutex != nil {
		return
	}
	b := &c.beliefs
	b.candidacy = a.Candidacy
	b.last = make([]time.Duration, c.ranks.Len())
	for i := range b.last {
		b.last[i] = -1
	}
}

// WantsSend makes the checker a trial.SendFilter: a quorum or mutual
// exclusion algorithm's checker, or one watching an anonymous ring's
// symmetry, wants every send, one counting elections only those of its
// Candidacy kind.
func (c *Checker) WantsSend(k nodes.Kind) bool {
	return c.quorum != nil || c.mutex != nil || c.symmetry != nil || c.beliefs.candidacy != 0 && k == c.beliefs.candidacy
}

// account adds the time since mark to the figures the state since then
// says it belongs to.
func (b *beliefWatch) account(at time.Duration) {
	if at <= b.mark {
		return
	}
	if b.selfLed >= 2 {
		b.stale += at - b.mark
	}
	if b.everAcked && !b.acked {
		b.leaderless += at - b.mark
	}
	b.mark = at
}

// reacknowledge recomputes acked after a change of beliefs: one live
// leader has believers (believed), and they are every live process.
func (b *beliefWatch) reacknowledge(believed int) {
	b.acked = believed == 1 && b.believing == b.live
	if b.acked {
		b.everAcked = true
	}
}

// sent counts an election: p's first message of the Candidacy kind at at.
func (b *beliefWatch) sent(at time.Duration, p int, m *nodes.Message) {
	if m.Kind != b.candidacy || b.candidacy == 0 || b.last[p] == at {
		return
	}
	b.last[p] = at
	b.elections++
}

// isSelf reports whether belief number b (leader number + 1, 0: none) of
// the process at position p is p itself.
func (c *Checker) isSelf(p int, b int32) bool {
	return b != 0 && c.leaders.Rank(b-1) == c.ranks.At(p)
}

// beliefChanged accounts p's decision, at at, from belief number old to
// new (leader numbers + 1), before the checker's counts change.
func (c *Checker) beliefChanged(at time.Duration, p int, old, new int32) {
	c.beliefs.account(at)
	if c.isSelf(p, old) {
		c.beliefs.selfLed--
	}
	if c.isSelf(p, new) {
		c.beliefs.selfLed++
	}
}

// figures closes the watch at end: Elections, Leaderless and StaleLeader,
// the others 0.
func (b *beliefWatch) figures(end time.Duration) Disruption {
	b.account(end)
	return Disruption{Elections: b.elections, Leaderless: b.leaderless, StaleLeader: b.stale}
}
