package check

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// Quorum algorithms (nodes.Algorithm.Quorum: chubby, zookeeper, raft) are
// judged differently from the ones that terminate. They elect whichever
// candidate wins a majority, not the highest process, and they run until
// the settling rule ends them (trial.Settling) or the deadline, so:
//
//   - safety is "at most one leader per term": no two processes send the
//     algorithm's Leader kind with the same term (two-leaders); whoever
//     first sends it for a term has had grants of that term delivered from a
//     majority, counting its own (minority-leader: a minority side of a
//     partition never elects); and, with a lease, no two masters' lease
//     intervals overlap in the harness clock (lease-overlap, recorded with
//     both intervals). The per-instant wrong-leader and disagreement checks
//     do not apply: a deposed leader may believe itself leader for a while.
//   - live means that at the end a live leader is known by a majority
//     of the cluster (⌊N/2⌋+1 live processes believe it, itself included);
//     correct adds that every live process decided and all agree.
//   - turnaround is the time until a leader was first known by a majority,
//     failover the time from a leader's crash until a new one was (Raft's
//     "downtime"), and detection the time from the crash until the first
//     ballot after it (the algorithm noticing: raft's election timeout,
//     chubby's candidacy, zookeeper's watch).
//   - terms used is the number of terms (epochs) in which a ballot was sent;
//     split votes are those in which nobody then acted as leader (a term
//     still open at the deadline counts as split).
//
// The checker reads all of this off the messages, not off the algorithm's
// claims: after WatchQuorum it wants every send and delivery event of the
// runtime (read-only).

// Term is one term (or epoch) of a quorum algorithm, as seen on the wire.
type Term struct {
	Term   int64
	Ballot time.Duration // when its first ballot was sent
	Leader int           // position of the process that first acted as its leader; -1 if none did
	Won    time.Duration // when that process first did
}

// quorumWatch is the checker's state for a quorum algorithm.
type quorumWatch struct {
	q        *nodes.Quorum
	lease    time.Duration // 0: no lease
	majority int
	terms    termTable
	doubled  map[int64]bool     // terms already reported with two leaders; nil before the first
	grants   grantSet           // the grants delivered
	leases   map[int]*leaseSpan // by position: the master's current lease; nil without Lease
	reported map[overlap]bool   // overlaps already recorded; nil without Lease
	known    bool               // a live leader is known by a majority now
	knownAt  []time.Duration    // instants at which that became true
	disrupt  *disruptWatch      // the disruption figures (disrupt.go)
	// logs are the last log indexes the processes hold (LastIndex), by
	// position; nil until a machine that holds a log reports one.
	logs []int64
	held []int64 // checkCompleteness's sorted copy of logs, kept: it runs once a term
	// grantRoom holds the first grants (grants.list): a raft trial at
	// N = 5 with a leader crash delivers about a dozen.
	grantRoom [16]grant
}

type leaseSpan struct{ start, end time.Duration }

// overlap names two masters' leases by their starts.
type overlap struct {
	held, claimed         int
	heldFrom, claimedFrom time.Duration
}

func (s leaseSpan) String() string { return fmt.Sprintf("[%v, %v)", s.start, s.end) }

// WatchQuorum prepares the checker for a quorum algorithm, before the run:
// it will then judge the trial by terms and majorities (above) and want the
// message events (Kinds). cfg is the run's algorithm configuration (for the
// lease length).
func (c *Checker) WatchQuorum(a *nodes.Algorithm, cfg nodes.Config) error {
	q := a.Quorum
	if q == nil {
		return fmt.Errorf("%s is not a quorum algorithm", a.Name)
	}
	w := &quorumWatch{
		q: q, majority: c.ranks.Len()/2 + 1,
	}
	w.grants.list = w.grantRoom[:0]
	// The maps only a lease algorithm or a violation fills are made when
	// needed: a quorum trial at N = 5 is small enough for their set-up to
	// show (issue 42).
	if q.Lease != nil {
		l, err := q.Lease(cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", a.Name, err)
		}
		w.lease = l
		w.leases, w.reported = map[int]*leaseSpan{}, map[overlap]bool{}
	}
	window, silence, err := disruptWindows(q, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", a.Name, err)
	}
	w.disrupt = newDisruptWatch(c.ranks, w.majority, silence, window)
	c.quorum = w
	return nil
}

// Sent is told of every message process from sends. It does nothing
// unless the checker watches a quorum algorithm.
func (c *Checker) Sent(at time.Duration, from int, m nodes.Message) { c.sent(at, from, &m) }

// sent is Sent reading the message in place: Event hands it the event's
// (144 bytes, at every send of a quorum trial).
func (c *Checker) sent(at time.Duration, from int, m *nodes.Message) {
	w := c.quorum
	if w == nil {
		return
	}
	switch {
	case m.Kind == w.q.Ballot:
		if w.terms.find(m.A) == nil {
			w.terms.add(m.A, at)
		}
	case w.q.IsLeader(m.Kind):
		c.actsAsLeader(at, from, m.A, true)
	}
	w.disrupt.advance(at)
	w.disrupt.sent(at, from, w.q, m)
}

// Delivered is told of every message delivered to process to from process
// from. It does nothing unless the checker watches a quorum algorithm.
func (c *Checker) Delivered(at time.Duration, to, from int, m nodes.Message) {
	c.delivered(at, to, from, &m)
}

// delivered is Delivered reading the message in place, as sent.
func (c *Checker) delivered(at time.Duration, to, from int, m *nodes.Message) {
	w := c.quorum
	if w == nil {
		return
	}
	w.disrupt.advance(at)
	w.disrupt.delivered(at, to, from, w.q, m)
	if m.Kind != w.q.Grant || m.B == 0 {
		return
	}
	w.grants.add(grant{int64(to), m.A, int64(from)})
}

// votes counts the distinct grants of term delivered to p: once a term,
// at its first leader, rather than a count kept at every grant in a map
// of its own (two allocations of a raft trial at N = 5; issue 42).
func (w *quorumWatch) votes(p int, term int64, n int) int {
	g := &w.grants
	votes := 0
	if g.set == nil {
		for _, x := range g.list {
			if x[0] == int64(p) && x[1] == term && x[2] >= 0 && x[2] < int64(n) {
				votes++
			}
		}
		return votes
	}
	for v := range n {
		if g.set[grant{int64(p), term, int64(v)}] {
			votes++
		}
	}
	return votes
}

// grant is a grant delivered: its receiver, term and voter.
type grant = [3]int64

// grantSet is the grants delivered, each once, found by comparing while
// they are few (grantScan) and through a map past that, as termTable finds
// terms: a map a trial, grown as a raft trial's votes come, was 0.6% of
// its CPU at N = 5 (issue 42).
type grantSet struct {
	list []grant        // up to grantScan, in quorumWatch.grantRoom first
	set  map[grant]bool // nil up to grantScan grants
}

// grantScan is how many grants a grantSet finds by comparing.
const grantScan = 32

func (g *grantSet) add(k grant) {
	if g.set != nil {
		g.set[k] = true
		return
	}
	if slices.Contains(g.list, k) {
		return
	}
	if len(g.list) < grantScan {
		g.list = append(g.list, k)
		return
	}
	g.set = make(map[grant]bool, 2*grantScan)
	for _, x := range g.list {
		g.set[x] = true
	}
	g.set[k] = true
	g.list = nil
}

// actsAsLeader notes p acting as leader of term. votesSeen says the
// term's grants are on the wire the checker reads; a server's are not
// (ServerRole), so the minority-leader check cannot apply to it.
func (c *Checker) actsAsLeader(at time.Duration, p int, term int64, votesSeen bool) {
	w := c.quorum
	t := w.terms.find(term)
	if t == nil { // a leader without a ballot: it cannot have had votes
		t = w.terms.add(term, at)
	}
	switch {
	case t.Leader < 0:
		t.Leader, t.Won = p, at
		if votes := w.votes(p, term, c.ranks.Len()) + 1; votesSeen && votes < w.majority {
			c.record(Violation{At: at, Kind: "minority-leader", Procs: []int{p},
				Detail: fmt.Sprintf("process %d (id %s) acted as leader of term %d with %d of %d votes (a majority is %d)",
					p, c.ranks.At(p), term, votes, c.ranks.Len(), w.majority)})
		}
		c.checkCompleteness(at, p, term)
	case t.Leader != p && !w.doubled[term]:
		if w.doubled == nil {
			w.doubled = map[int64]bool{}
		}
		w.doubled[term] = true
		c.record(Violation{At: at, Kind: "two-leaders", Procs: []int{t.Leader, p},
			Detail: fmt.Sprintf("term %d: process %d (id %s) acted as leader from %v, and process %d (id %s) at %v",
				term, t.Leader, c.ranks.At(t.Leader), t.Won, p, c.ranks.At(p), at)})
	}
	if w.lease > 0 {
		c.claimLease(at, p)
	}
}

// LastIndex is told the last log index process p holds after each of
// its starts (trial.LogSink; nodes.LogHolder): raft with logs. It does
// nothing unless the checker watches a quorum algorithm.
func (c *Checker) LastIndex(p int32, index int64) {
	w := c.quorum
	if w == nil {
		return
	}
	if w.logs == nil {
		w.logs = make([]int64, c.ranks.Len())
	}
	w.logs[p] = index
}

// checkCompleteness judges Leader Completeness (Raft §5.4) at the first
// leader p of term: it must hold every committed entry, that is, the
// index a majority holds (the ⌊N/2⌋+1-th highest of the last indexes; a
// process that never started holds none). Raft's vote rule guarantees
// it: the majority that elected p meets the majority holding the
// committed index, and a voter grants only a candidate at least as
// up-to-date (§5.4.1). A process whose log was lost (amnesia) redraws
// it, which this then reports, rightly.
func (c *Checker) checkCompleteness(at time.Duration, p int, term int64) {
	w := c.quorum
	if w.logs == nil {
		return
	}
	w.held = append(w.held[:0], w.logs...)
	held := w.held
	slices.Sort(held)
	committed := held[len(held)-w.majority]
	if w.logs[p] >= committed {
		return
	}
	c.record(Violation{At: at, Kind: "leader-completeness", Procs: []int{p},
		Detail: fmt.Sprintf("process %d (id %s) acted as leader of term %d with last log index %d, below the committed index %d (held by a majority)",
			p, c.ranks.At(p), term, w.logs[p], committed)})
}

// claimLease records p's claim to be master over [at, at+lease) and checks
// it against every other master's current lease. Claims arrive in time
// order, so checking each new one against the others' latest suffices.
func (c *Checker) claimLease(at time.Duration, p int) {
	w := c.quorum
	s := w.leases[p]
	if s == nil {
		s = &leaseSpan{start: at}
		w.leases[p] = s
	} else if at >= s.end {
		s.start = at // a new lease, not a renewal of the last
	}
	s.end = at + w.lease
	for _, q := range slices.Sorted(maps.Keys(w.leases)) {
		o := w.leases[q]
		if q == p || o.end <= at {
			continue
		}
		k := overlap{held: q, claimed: p, heldFrom: o.start, claimedFrom: s.start}
		if w.reported[k] {
			continue
		}
		w.reported[k] = true
		c.record(Violation{At: at, Kind: "lease-overlap", Procs: []int{q, p},
			Detail: fmt.Sprintf("master %d (id %s) holds the lease %v while master %d (id %s) claims %v",
				q, c.ranks.At(q), *o, p, c.ranks.At(p), leaseSpan{at, s.end})})
	}
}

// updateKnown notes the instants at which a live leader becomes known by a
// majority; called after every decision and crash.
func (c *Checker) updateKnown(at time.Duration) {
	w := c.quorum
	known := false
	for _, n := range c.believers {
		if int(n) >= w.majority {
			known = true
			break
		}
	}
	if known && !w.known {
		w.knownAt = append(w.knownAt, at)
	}
	w.known = known
}

// finishQuorum is Finish for a quorum algorithm.
func (c *Checker) finishQuorum(decisions *trial.Decisions, end time.Duration) Verdict {
	w := c.quorum
	v := Verdict{Perpetual: true, KnownAt: w.knownAt}
	a := c.agreement(decisions)
	allDecided, agree, leader := a.All, a.Agree, a.Leader
	v.DecidedAt, v.Leader = a.At, leaderText(a)
	v.Live = w.known
	v.Correct = allDecided && agree && !leader.IsZero() && int(c.believersOf(leader)) >= w.majority
	v.Terms = w.terms.list // the watch is done with them
	v.Violations = c.count
	v.Recorded = c.list
	v.Disruption = w.disrupt.figures(end)
	if !v.Live {
		v.Recorded = append(v.Recorded, Violation{At: end, Kind: "no-majority-leader",
			Detail: "no live leader was known by a majority at the deadline"})
	}
	return v
}

// SplitVotes counts the terms in which ballots were sent but nobody acted as
// leader.
func (v Verdict) SplitVotes() int64 {
	var n int64
	for _, t := range v.Terms {
		if t.Leader < 0 {
			n++
		}
	}
	return n
}

// Downtime is, for a quorum algorithm, the time from at (a leader's crash)
// until a live leader was next known by a majority; ok is false if none was
// by the deadline.
func (v Verdict) Downtime(at time.Duration) (time.Duration, bool) {
	for _, k := range v.KnownAt {
		if k >= at {
			return k - at, true
		}
	}
	return 0, false
}

// disruptWindows gives the disruption watch's reach window and silence
// (disrupt.go): two heartbeats each; without a heartbeat, a reach window of
// two steady periods (5T each when unknown, as the plan's estimate assumes)
// and no silence.
func disruptWindows(q *nodes.Quorum, cfg nodes.Config) (window, silence time.Duration, err error) {
	if q.Heartbeat != nil {
		h, err := q.Heartbeat(cfg)
		if err != nil {
			return 0, 0, err
		}
		return 2 * h, 2 * h, nil
	}
	steady := 5 * cfg.T
	if q.Steady != nil {
		if steady, err = q.Steady(cfg); err != nil {
			return 0, 0, err
		}
	}
	return 2 * steady, 0, nil
}

// disruptDecided tells the disruption watch of p's decision for rank,
// leader number i of the checker's table.
func (w *quorumWatch) disruptDecided(at time.Duration, p int, rank *nodes.Rank, i int32) {
	w.disrupt.decided(at, p, w.disrupt.position(i, rank))
}

// termTable is the terms of a trial in the order first seen, found by
// comparing while they are few (termScan) and through a map past that, as
// trial.RankTable finds ranks: a map and a Term a term were five of a
// raft trial's allocations at N = 5 (issue 42).
type termTable struct {
	list  []Term
	index map[int64]int32 // term → its place in list; nil up to termScan terms
}

// termScan is how many terms a termTable finds by comparing, from the
// latest back (a trial's messages are mostly of its latest term).
const termScan = 8

// find returns term's entry, nil if none; valid until the next add.
func (t *termTable) find(term int64) *Term {
	if t.index != nil {
		if i, ok := t.index[term]; ok {
			return &t.list[i]
		}
		return nil
	}
	for i := len(t.list) - 1; i >= 0; i-- {
		if t.list[i].Term == term {
			return &t.list[i]
		}
	}
	return nil
}

// add adds term, not yet in t, its first ballot at at, and returns its
// entry, valid until the next add.
func (t *termTable) add(term int64, at time.Duration) *Term {
	t.list = append(t.list, Term{Term: term, Ballot: at, Leader: -1})
	switch {
	case t.index != nil:
		t.index[term] = int32(len(t.list) - 1)
	case len(t.list) > termScan:
		t.index = make(map[int64]int32, len(t.list))
		for i := range t.list {
			t.index[t.list[i].Term] = int32(i)
		}
	}
	return &t.list[len(t.list)-1]
}
