package workloads

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/reports"
)

// Quorum algorithms (nodes.Algorithm.Quorum: chubby, zookeeper, raft) are
// judged differently from the ones that terminate. They elect whichever
// candidate wins a majority, not the highest process, and they run until
// the deadline, so:
//
//   - safety is "at most one leader per term": no two processes send the
//     algorithm's Leader kind with the same term (two-leaders); whoever
//     first sends it for a term has had grants of that term delivered from a
//     majority, counting its own (minority-leader: a minority side of a
//     partition never elects); and, with a lease, no two masters' lease
//     intervals overlap in the harness clock (lease-overlap, recorded with
//     both intervals). The per-instant wrong-leader and disagreement checks
//     do not apply: a deposed leader may believe itself leader for a while.
//   - live means that at the deadline a live leader is known by a majority
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
// claims: WatchQuorum wraps each process's machine so that the checker sees
// every message as it is sent and as it is delivered (read-only).

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
	posOf    map[nodes.Rank]int
	byPeer   map[nodes.PeerID]int // built from the first process's peer list
	terms    map[int64]*Term
	order    []int64
	doubled  map[int64]bool     // terms already reported with two leaders
	grants   map[[3]int64]bool  // (receiver, term, voter) grants delivered
	granted  map[[2]int64]int   // (receiver, term) → distinct grants delivered
	leases   map[int]*leaseSpan // by position: the master's current lease
	reported map[overlap]bool   // overlaps already recorded
	known    bool               // a live leader is known by a majority now
	knownAt  []time.Duration    // instants at which that became true
}

type leaseSpan struct{ start, end time.Duration }

// overlap names two masters' leases by their starts.
type overlap struct {
	held, claimed         int
	heldFrom, claimedFrom time.Duration
}

func (s leaseSpan) String() string { return fmt.Sprintf("[%v, %v)", s.start, s.end) }

// WatchQuorum prepares the checker for a quorum algorithm and returns the
// algorithm to run in its place: a copy whose machines are wrapped so that
// the checker sees every message sent and delivered. cfg is the run's
// configuration (for the lease length). Call it before the run.
func (c *Checker) WatchQuorum(a *nodes.Algorithm, cfg nodes.Config) (*nodes.Algorithm, error) {
	q := a.Quorum
	if q == nil {
		return nil, fmt.Errorf("%s is not a quorum algorithm", a.Name)
	}
	w := &quorumWatch{
		q: q, majority: len(c.ranks)/2 + 1, posOf: make(map[nodes.Rank]int, len(c.ranks)),
		terms: map[int64]*Term{}, doubled: map[int64]bool{}, grants: map[[3]int64]bool{}, granted: map[[2]int64]int{},
		leases: map[int]*leaseSpan{}, reported: map[overlap]bool{},
	}
	if q.Lease != nil {
		l, err := q.Lease(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Name, err)
		}
		w.lease = l
	}
	for i, r := range c.ranks {
		w.posOf[r] = i
	}
	c.quorum = w
	wrapped := *a
	inner := a.New
	wrapped.New = func(cfg nodes.Config) (func() nodes.Machine, error) {
		newMachine, err := inner(cfg)
		if err != nil {
			return nil, err
		}
		return func() nodes.Machine {
			m := &watched{inner: newMachine(), env: watchedEnv{c: c, p: -1}}
			if _, ok := m.inner.(nodes.Phased); ok {
				return watchedPhased{m}
			}
			return m
		}, nil
	}
	return &wrapped, nil
}

// watched passes every event through to the algorithm's machine, showing
// the checker each message on the way.
type watched struct {
	inner nodes.Machine
	env   watchedEnv
}

type watchedEnv struct {
	nodes.Env
	c *Checker
	p int // this process's position; -1 until its first event
}

func (e *watchedEnv) Send(to nodes.PeerID, m nodes.Message) {
	e.c.Sent(e.Now(), e.p, m)
	e.Env.Send(to, m)
}

func (w *watched) bind(env nodes.Env) *watchedEnv {
	w.env.Env = env
	if w.env.p < 0 {
		w.env.p = w.env.c.quorum.posOf[env.Self()]
	}
	return &w.env
}

func (w *watched) Start(env nodes.Env)    { w.inner.Start(w.bind(env)) }
func (w *watched) Initiate(env nodes.Env) { w.inner.Initiate(w.bind(env)) }
func (w *watched) Timeout(env nodes.Env, t nodes.TimerID) {
	w.inner.Timeout(w.bind(env), t)
}
func (w *watched) Suspect(env nodes.Env, p nodes.PeerID) { w.inner.Suspect(w.bind(env), p) }
func (w *watched) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	e := w.bind(env)
	qw := e.c.quorum
	if qw.byPeer == nil {
		qw.byPeer = map[nodes.PeerID]int{}
		for _, p := range env.Peers() {
			qw.byPeer[p.ID] = qw.posOf[p.Rank]
		}
	}
	e.c.Delivered(env.Now(), e.p, qw.byPeer[from], m)
	w.inner.Receive(e, from, m)
}

type watchedPhased struct{ *watched }

func (w watchedPhased) Phase() string { return w.inner.(nodes.Phased).Phase() }

// Sent is told of every message process from sends (WatchQuorum arranges
// it). It does nothing unless the checker watches a quorum algorithm.
func (c *Checker) Sent(at time.Duration, from int, m nodes.Message) {
	w := c.quorum
	if w == nil {
		return
	}
	switch m.Kind {
	case w.q.Ballot:
		if w.terms[m.A] == nil {
			w.terms[m.A] = &Term{Term: m.A, Ballot: at, Leader: -1}
			w.order = append(w.order, m.A)
		}
	case w.q.Leader:
		c.actsAsLeader(at, from, m.A)
	}
}

// Delivered is told of every message delivered to process to from process
// from. It does nothing unless the checker watches a quorum algorithm.
func (c *Checker) Delivered(_ time.Duration, to, from int, m nodes.Message) {
	w := c.quorum
	if w == nil || m.Kind != w.q.Grant || m.B == 0 {
		return
	}
	k := [3]int64{int64(to), m.A, int64(from)}
	if !w.grants[k] {
		w.grants[k] = true
		w.granted[[2]int64{int64(to), m.A}]++
	}
}

func (c *Checker) actsAsLeader(at time.Duration, p int, term int64) {
	w := c.quorum
	t := w.terms[term]
	if t == nil { // a leader without a ballot: it cannot have had votes
		t = &Term{Term: term, Ballot: at, Leader: -1}
		w.terms[term] = t
		w.order = append(w.order, term)
	}
	switch {
	case t.Leader < 0:
		t.Leader, t.Won = p, at
		if votes := w.granted[[2]int64{int64(p), term}] + 1; votes < w.majority {
			c.record(Violation{At: at, Kind: "minority-leader", Procs: []int{p},
				Detail: fmt.Sprintf("process %d (id %s) acted as leader of term %d with %d of %d votes (a majority is %d)",
					p, c.ranks[p], term, votes, len(c.ranks), w.majority)})
		}
	case t.Leader != p && !w.doubled[term]:
		w.doubled[term] = true
		c.record(Violation{At: at, Kind: "two-leaders", Procs: []int{t.Leader, p},
			Detail: fmt.Sprintf("term %d: process %d (id %s) acted as leader from %v, and process %d (id %s) at %v",
				term, t.Leader, c.ranks[t.Leader], t.Won, p, c.ranks[p], at)})
	}
	if w.lease > 0 {
		c.claimLease(at, p)
	}
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
				q, c.ranks[q], *o, p, c.ranks[p], leaseSpan{at, s.end})})
	}
}

// updateKnown notes the instants at which a live leader becomes known by a
// majority; called after every decision and crash.
func (c *Checker) updateKnown(at time.Duration) {
	w := c.quorum
	known := false
	for _, n := range c.believers {
		if n >= w.majority {
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
func (c *Checker) finishQuorum(decisions []sim.Decision, end time.Duration) Verdict {
	w := c.quorum
	v := Verdict{Perpetual: true, KnownAt: w.knownAt}
	allDecided, agree := true, true
	var leader nodes.Rank
	for p, d := range decisions {
		if !c.alive[p] {
			continue
		}
		if d.Count == 0 {
			allDecided = false
			continue
		}
		v.DecidedAt = max(v.DecidedAt, d.At)
		if leader.IsZero() {
			leader = d.Leader
		} else if d.Leader != leader {
			agree = false
		}
	}
	if allDecided && agree && !leader.IsZero() {
		v.Leader = leader.String()
	}
	v.Live = w.known
	v.Correct = allDecided && agree && !leader.IsZero() && c.believers[leader] >= w.majority
	for _, t := range w.order {
		v.Terms = append(v.Terms, *w.terms[t])
	}
	v.Violations = c.count
	v.Recorded = c.list
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

// fillQuorum sets the columns that mean something else for a quorum
// algorithm (see the comment at the top of this file).
func fillQuorum(row *reports.Row, res *sim.Result, v Verdict) {
	if !v.Perpetual {
		return
	}
	row.Terms = reports.Some(int64(len(v.Terms)))
	row.SplitVotes = reports.Some(v.SplitVotes())
	row.TurnaroundS, row.TurnaroundT = reports.Opt[float64]{}, reports.Opt[float64]{}
	if len(v.KnownAt) > 0 && res.FirstInitiation >= 0 {
		row.TurnaroundS, row.TurnaroundT = inUnits(v.KnownAt[0]-res.FirstInitiation, res.T)
	}
	for _, c := range res.Crashes {
		if !c.WasLeader {
			continue
		}
		row.DetectS, row.FailoverS, row.FailoverT = reports.Opt[float64]{}, reports.Opt[float64]{}, reports.Opt[float64]{}
		if d, ok := v.Downtime(c.At); ok {
			row.FailoverS, row.FailoverT = inUnits(d, res.T)
		}
		for _, t := range v.Terms {
			if t.Ballot >= c.At {
				row.DetectS = reports.Some((t.Ballot - c.At).Seconds())
				break
			}
		}
		return
	}
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
