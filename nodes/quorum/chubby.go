package quorum

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/quorum/tally"
)

// Chubby's kinds (doc.go lists the fields each uses). VOTE is raft's kind:
// a vote for the receiver in epoch A.
var (
	kindVoteRequest = nodes.RegisterKind("VOTE_REQUEST", nodes.ElectionClass)
	kindLease       = nodes.RegisterKind("LEASE", nodes.MaintenanceClass)
	kindRenew       = nodes.RegisterKind("RENEW", nodes.MaintenanceClass)
	kindRenewAck    = nodes.RegisterKind("RENEW_ACK", nodes.MaintenanceClass)

	// A candidacy, a vote round running out and a lease expiring are the
	// election's timers; the master's periodic renewal is maintenance,
	// counted by kind only, as its RENEW messages are.
	timerCandidacy = nodes.RegisterTimer("CANDIDACY", nodes.ElectionClass)
	timerRound     = nodes.RegisterTimer("VOTE_ROUND", nodes.ElectionClass)
	timerRenew     = nodes.RegisterTimer("RENEW", nodes.MaintenanceClass)
	timerLeaseEnd  = nodes.RegisterTimer("LEASE_END", nodes.ElectionClass)
)

var chubbyParams = []nodes.Param{
	{Name: "lease", Default: "40T", Summary: "master lease L: how long a won vote or renewal makes its winner master (duration)"},
	{Name: "renew-margin", Default: "10T", Summary: "the master starts renewing this long before its lease ends, and every vote round lasts at most this long (duration)"},
	{Name: "wait-min", Default: "5T", Summary: "shortest randomized wait before a candidacy once no valid lease is seen (duration)"},
	{Name: "wait-max", Default: "25T", Summary: "longest randomized wait before a candidacy (duration)"},
}

func init() {
	nodes.Register(nodes.Algorithm{
		Name:      "chubby",
		Family:    "quorum",
		Summary:   "Chubby's master election (Burrows 2006): one vote per epoch, a master lease renewed by majority, promises not to vote during a lease",
		Topology:  nodes.Complete,
		StartsAll: true,
		Params:    chubbyParams,
		New:       newChubby,
		Quorum: &nodes.Quorum{Ballot: kindVoteRequest, Grant: kindVote, Leader: kindLease,
			Lease: timing(chubbyTimingOf, func(tm *chubbyTiming, _ time.Duration) time.Duration { return tm.lease }),
			// The master renews its lease with everyone once a lease less
			// the margin.
			Steady: timing(chubbyTimingOf, func(tm *chubbyTiming, _ time.Duration) time.Duration { return tm.lease - tm.margin }),
			// A won renewal is a new LEASE: its round starts lease −
			// margin after the last and lasts at most the margin.
			Heartbeat: timing(chubbyTimingOf, func(tm *chubbyTiming, _ time.Duration) time.Duration { return tm.lease }),
			Settle:    timing(chubbyTimingOf, (*chubbyTiming).settle)},
	})
}

type chubbyTiming struct {
	lease, margin, waitMin, waitMax time.Duration
}

// settle is chubby's settling window (nodes.Quorum.Settle). The master
// renews lease − margin after each hold, and its round of RENEW and
// RENEW_ACK ends within 2D: before its lease ends, and before any replica's
// candidacy (armed lease + margin + a wait after each RENEW it accepts)
// expires, when 2D < margin. The longest election timer is a candidacy,
// lease + margin + wait-max.
func (tm *chubbyTiming) settle(d time.Duration) time.Duration {
	if 2*d >= tm.margin {
		return 0
	}
	return tm.lease + tm.margin + tm.waitMax + 2*d
}

func chubbyTimingOf(cfg nodes.Config) (*chubbyTiming, error) {
	if _, err := nodes.CheckVariant("chubby", cfg.Variant, "default"); err != nil {
		return nil, err
	}
	if err := nodes.CheckParams("chubby", cfg.Params, chubbyParams); err != nil {
		return nil, err
	}
	tm := new(chubbyTiming)
	if err := durations(cfg, chubbyParams, map[string]*time.Duration{
		"lease": &tm.lease, "renew-margin": &tm.margin, "wait-min": &tm.waitMin, "wait-max": &tm.waitMax,
	}); err != nil {
		return nil, err
	}
	if tm.margin >= tm.lease {
		return nil, fmt.Errorf("parameter renew-margin: %v must be shorter than the lease %v", tm.margin, tm.lease)
	}
	if tm.waitMax < tm.waitMin {
		return nil, fmt.Errorf("parameter wait-max: %v is below wait-min %v", tm.waitMax, tm.waitMin)
	}
	return tm, nil
}

func newChubby(cfg nodes.Config) (func() nodes.Machine, error) {
	tm, err := chubbyTimingOf(cfg)
	if err != nil {
		return nil, err
	}
	return func() nodes.Machine { return &chubby{chubbyTiming: tm} }, nil
}

// chubby is one replica of `chubby` (ALGORITHMS.md, "chubby"). Its role is
// replica, candidate (a vote round for itself is open) or master (it holds a
// lease).
//
// Why the lease is safe in the harness clock. A round — a candidacy's
// VOTE_REQUEST or a master's RENEW — is sent at s and counts only answers
// that arrive by s + margin, so the round is won at some a ≤ s + margin.
// Every voter answered at some v ≥ s and promised its vote to nobody else
// until v + L + margin ≥ a + L. The winner holds the lease over [a, a+L).
// Any later winner needs a majority, which shares a voter with this one, and
// that voter answers it only after a + L: no two leases overlap, whatever
// the latency. (A clock that drifts would need the margin to cover the
// drift; the simulator's clocks do not drift.)
type chubby struct {
	nodes.Group
	*chubbyTiming
	role         role  // follower is a replica, leader the master
	epoch        int64 // highest epoch seen
	votedEpoch   int64 // the epoch of the latest vote given: one candidate per epoch
	votedFor     int   // whom, by index
	promisedTo   int   // whom the current promise binds to; -1 for nobody
	promiseUntil time.Duration
	believed     nodes.Rank // the master this process last decided; zero before any
	masterEpoch  int64      // the epoch of the believed master
	round        tally.Tally
	roundEnd     time.Duration // candidate: the last instant its round counts votes
	renewing     bool          // master: a RENEW round is open
	leaseEnd     time.Duration // master: when its lease ends
}

func (c *chubby) Start(env nodes.Env) {
	c.Init(env, "chubby")
	c.votedFor, c.promisedTo = -1, -1
	if env.Now() > 0 {
		// Started after the run began: a restart, with every promise made
		// before the crash forgotten. Each of them ended at most L + margin
		// after it was made, so voting for nobody — itself included — for
		// that long keeps them all.
		c.promisedTo, c.promiseUntil = c.Self, env.Now()+c.lease+c.margin
		c.armCandidacy(env, c.promiseUntil)
		return
	}
	c.armCandidacy(env, env.Now())
}

// Initiate asks for a candidacy now, unless this process is already master
// or has promised its vote to another (a promise is never broken).
func (c *chubby) Initiate(env nodes.Env) {
	if c.role == follower && c.free(env, c.Self) {
		c.stand(env)
	}
}

// Suspect is ignored: the lease is Chubby's failure detector.
func (c *chubby) Suspect(nodes.Env, nodes.PeerID) {}

func (c *chubby) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	i, ok := c.IndexOf(m.Rank, from)
	if !ok || i == c.Self {
		return // a message that lies about its sender
	}
	c.lapse(env)
	c.epoch = max(c.epoch, m.A)
	switch m.Kind {
	case kindVoteRequest:
		c.ballot(env, i, m, kindVote)
	case kindRenew:
		if c.ballot(env, i, m, kindRenewAck) {
			c.learn(env, i, m.A)
		}
	case kindVote:
		if c.role == candidate && m.A == c.votedEpoch && m.B != 0 {
			c.count(env, i)
		}
	case kindRenewAck:
		if c.role == leader && c.renewing && m.A == c.votedEpoch {
			c.count(env, i)
		}
	case kindLease:
		c.announced(env, i, m.A)
	}
}

func (c *chubby) Timeout(env nodes.Env, t nodes.TimerID) {
	c.lapse(env)
	switch {
	case t == timerCandidacy && c.role == follower:
		if c.free(env, c.Self) {
			c.stand(env)
		} else {
			c.armCandidacy(env, c.promiseUntil) // promised to another: wait it out
		}
	case t == timerRound && c.role == candidate:
		c.giveUp(env)
	case t == timerRenew && c.role == leader:
		c.renew(env)
	}
}

// lapse runs before every event and looks at the clock, not at the timers:
// a process that slept (Chubby's classic hazard: a paused master must look
// at its clock before it acts) wakes to its missed messages before its
// missed timers. A master whose lease has ended — its renewal did not win a
// majority in time, or it slept through the end — is a replica again; so is
// a candidate whose round has closed, which must not count a vote that
// arrives after it (the lease argument above needs a ≤ s + margin).
func (c *chubby) lapse(env nodes.Env) {
	switch {
	case c.role == leader && env.Now() >= c.leaseEnd:
		c.giveUp(env)
	case c.role == candidate && env.Now() > c.roundEnd:
		c.giveUp(env)
	}
}

// giveUp: the round closed without a majority, or the lease ended. Back to
// replica, and "a replica starts a candidacy after a randomized wait once it
// sees no valid lease".
func (c *chubby) giveUp(env nodes.Env) {
	c.stepDown(env)
	c.armCandidacy(env, env.Now())
}

func (c *chubby) msg(k nodes.Kind, epoch int64) nodes.Message {
	return nodes.Message{Kind: k, Rank: c.Peers[c.Self].Rank, A: epoch}
}

// free reports whether this process may vote for process i now: "a replica
// that voted promises no vote to anyone else until that lease has expired".
func (c *chubby) free(env nodes.Env, i int) bool {
	return c.promisedTo < 0 || c.promisedTo == i || env.Now() >= c.promiseUntil
}

// vote gives this process's vote in epoch to process i, with the promise
// that covers any lease i may win from it.
func (c *chubby) vote(env nodes.Env, i int, epoch int64) {
	c.votedEpoch, c.votedFor = epoch, i
	c.promisedTo, c.promiseUntil = i, env.Now()+c.lease+c.margin
}

// ballot answers a VOTE_REQUEST or a RENEW from i: "each replica votes for
// at most one candidate per epoch", and not at all while promised to
// another. A refusal is silence; the round's timer covers it. It reports
// whether the vote was given.
func (c *chubby) ballot(env nodes.Env, i int, m nodes.Message, answer nodes.Kind) bool {
	once := m.A > c.votedEpoch || m.A == c.votedEpoch && c.votedFor == i
	if !once || !c.free(env, i) {
		return false
	}
	c.vote(env, i, m.A)
	reply := c.msg(answer, m.A)
	reply.B = 1 // granted, as raft's VOTE says it
	env.Send(c.Peers[i].ID, reply)
	c.armCandidacy(env, c.promiseUntil)
	return true
}

// stand starts a candidacy: a new epoch, its own vote, VOTE_REQUEST to all.
func (c *chubby) stand(env nodes.Env) {
	c.epoch = max(c.epoch, c.votedEpoch) + 1
	c.role = candidate
	c.vote(env, c.Self, c.epoch)
	c.round.Reset(c.N())
	c.round.Record(c.Self, true)
	env.CancelTimer(timerCandidacy)
	c.Broadcast(env, c.msg(kindVoteRequest, c.epoch))
	c.roundEnd = env.Now() + c.margin
	env.SetTimer(c.margin, timerRound)
	if c.round.Result() == tally.Won {
		c.hold(env)
	}
}

// renew opens a renewal round, margin before the lease ends; the lease end
// closes it.
func (c *chubby) renew(env nodes.Env) {
	c.renewing = true
	c.vote(env, c.Self, c.votedEpoch)
	c.round.Reset(c.N())
	c.round.Record(c.Self, true)
	c.Broadcast(env, c.msg(kindRenew, c.votedEpoch))
	if c.round.Result() == tally.Won {
		c.hold(env)
	}
}

func (c *chubby) count(env nodes.Env, i int) {
	c.round.Record(i, true)
	if c.round.Result() == tally.Won {
		c.hold(env)
	}
}

// hold makes this process master for a lease of L from now (a won vote or a
// won renewal) and tells everyone with LEASE, the claim the checker holds it
// to.
func (c *chubby) hold(env nodes.Env) {
	c.role, c.renewing = leader, false
	c.leaseEnd = env.Now() + c.lease
	env.CancelTimer(timerRound)
	env.CancelTimer(timerCandidacy)
	env.SetTimer(c.lease-c.margin, timerRenew)
	env.SetTimer(c.lease, timerLeaseEnd)
	c.learn(env, c.Self, c.votedEpoch)
	c.Broadcast(env, c.msg(kindLease, c.votedEpoch))
}

// stepDown ends a candidacy or a lease. Its promise to itself goes with
// it: that promise only keeps a candidate or master from voting for another
// while it may hold a lease, and without one it would keep two failed
// candidates from ever voting for each other.
func (c *chubby) stepDown(env nodes.Env) {
	c.role, c.renewing = follower, false
	if c.promisedTo == c.Self {
		c.promisedTo = -1
	}
	env.CancelTimer(timerRound)
	env.CancelTimer(timerRenew)
	env.CancelTimer(timerLeaseEnd)
}

// announced: a master announced or renewed its lease. The replica learns
// the master and sees a valid lease for up to L from now, so its candidacy
// waits until after that.
func (c *chubby) announced(env nodes.Env, i int, epoch int64) {
	if epoch < c.masterEpoch {
		return // a deposed master's late announcement
	}
	if c.role == candidate && epoch >= c.votedEpoch {
		c.stepDown(env)
	}
	if c.role == leader {
		// Two masters at once is what the promises exclude (lapse has
		// already deposed this one if its lease ended). Only a fault the
		// protocol does not cover gets here — the checker records the
		// overlap — and the master of an older epoch yields.
		if epoch <= c.votedEpoch {
			return
		}
		c.stepDown(env)
	}
	c.learn(env, i, epoch)
	c.armCandidacy(env, max(c.promiseUntil, env.Now()+c.lease))
}

// learn records master i of epoch, deciding only when the belief changes.
func (c *chubby) learn(env nodes.Env, i int, epoch int64) {
	c.masterEpoch = max(c.masterEpoch, epoch)
	if l := c.Peers[i].Rank; l != c.believed {
		c.believed = l
		env.Decide(l)
	}
}

// armCandidacy plans a candidacy a random wait after from.
func (c *chubby) armCandidacy(env nodes.Env, from time.Duration) {
	env.SetTimer(from-env.Now()+uniform(env, c.waitMin, c.waitMax), timerCandidacy)
}
