package quorum

import (
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

func voteRequest(epoch int64, cand uint64) nodes.Message {
	return nodes.Message{Kind: kindVoteRequest, Rank: rank(cand), A: epoch}
}

func chubbyVote(epoch int64, voter uint64) nodes.Message {
	return nodes.Message{Kind: kindVote, Rank: rank(voter), A: epoch, B: 1}
}

func lease(epoch int64, master uint64) nodes.Message {
	return nodes.Message{Kind: kindLease, Rank: rank(master), A: epoch}
}

func renew(epoch int64, master uint64) nodes.Message {
	return nodes.Message{Kind: kindRenew, Rank: rank(master), A: epoch}
}

func renewAck(epoch int64, replica uint64) nodes.Message {
	return nodes.Message{Kind: kindRenewAck, Rank: rank(replica), A: epoch, B: 1}
}

// Defaults: lease L = 40T, renew-margin 10T, candidacy wait 5T..25T.

// ALGORITHMS.md, "chubby": "a replica starts a candidacy after a randomized
// wait once it sees no valid lease" — at the start nobody has seen one.
func TestChubbyStartsWaiting(t *testing.T) {
	n := five(t, "chubby", nil)
	n.ExpectSent()
	for p := range 5 {
		n.ExpectArmedWithin(p, timerCandidacy, 5*T, 25*T)
		n.ExpectDecided(p)
	}
}

// ALGORITHMS.md, "chubby": a candidate that wins a majority becomes master for
// a lease of length L; the master renews by winning a majority again before
// expiry (lines 155-156).
func TestChubbyCandidacyLeaseAndRenewal(t *testing.T) {
	n := five(t, "chubby", nil)
	n.Fire(me, timerCandidacy)
	n.ExpectSent(toAll(me, 5, voteRequest(1, 30))...)
	n.ExpectArmed(me, timerRound, 10*T)
	n.Jump(2 * T)
	n.Receive(me, 0, chubbyVote(1, 10))
	n.Receive(me, 0, chubbyVote(1, 10)) // counted once
	n.Receive(me, 1, chubbyVote(2, 20)) // another epoch
	n.ExpectSent()
	n.Receive(me, 3, chubbyVote(1, 40))
	n.ExpectSent(toAll(me, 5, lease(1, 30))...)
	n.ExpectDecided(me, 30)
	n.ExpectArmed(me, timerRound, nodetest.NotArmed)
	n.ExpectArmed(me, timerCandidacy, nodetest.NotArmed)
	n.ExpectArmed(me, timerRenew, 32*T)    // margin before the end
	n.ExpectArmed(me, timerLeaseEnd, 42*T) // L after the majority

	n.Jump(32 * T)
	n.Fire(me, timerRenew)
	n.ExpectSent(toAll(me, 5, renew(1, 30))...)
	n.Jump(34 * T)
	n.Receive(me, 4, renewAck(1, 50))
	n.ExpectSent()
	n.Receive(me, 1, renewAck(1, 20))
	n.ExpectSent(toAll(me, 5, lease(1, 30))...) // the renewed lease: L from now
	n.ExpectArmed(me, timerRenew, 64*T)
	n.ExpectArmed(me, timerLeaseEnd, 74*T)
	n.Receive(me, 0, renewAck(1, 10)) // late: changes nothing
	n.ExpectSent()
	n.ExpectDecided(me, 30)
}

// A renewal that does not win a majority before the lease ends leaves the
// master a replica, which waits before standing again.
func TestChubbyLeaseLapses(t *testing.T) {
	n := five(t, "chubby", nil)
	n.Fire(me, timerCandidacy)
	n.Receive(me, 0, chubbyVote(1, 10))
	n.Receive(me, 1, chubbyVote(1, 20))
	n.Take()
	n.Jump(30 * T)
	n.Fire(me, timerRenew)
	n.Take()
	n.Receive(me, 4, renewAck(1, 50)) // two of five with itself
	n.Jump(40 * T)
	n.Fire(me, timerLeaseEnd)
	n.ExpectSent()
	n.ExpectArmed(me, timerRenew, nodetest.NotArmed)
	n.ExpectArmedWithin(me, timerCandidacy, 45*T, 65*T)
	n.Receive(me, 0, renewAck(1, 10)) // too late for the lease that was
	n.ExpectSent()
}

// ALGORITHMS.md, "chubby": "each replica votes for at most one candidate per
// epoch"; lines 154-155: "a replica that voted promises no vote to anyone
// else until that lease has expired" — L + margin from its vote.
func TestChubbyVotingAndPromise(t *testing.T) {
	n := five(t, "chubby", nil)
	n.Jump(2 * T)
	n.Receive(me, 0, voteRequest(1, 10))
	n.ExpectSent(send(me, 0, chubbyVote(1, 30)))
	n.ExpectArmedWithin(me, timerCandidacy, 57*T, 77*T) // the promise ends at 52T
	n.Receive(me, 1, voteRequest(1, 20))                // once per epoch
	n.Receive(me, 1, voteRequest(2, 20))                // promised to 10
	n.ExpectSent()
	n.Jump(51 * T)
	n.Receive(me, 3, voteRequest(3, 40))
	n.ExpectSent()
	n.Receive(me, 0, voteRequest(4, 10)) // the promised candidate may have it
	n.ExpectSent(send(me, 0, chubbyVote(4, 30)))
	n.Jump(101 * T) // that promise ran to 101T
	n.Receive(me, 3, voteRequest(5, 40))
	n.ExpectSent(send(me, 3, chubbyVote(5, 30)))
	n.Receive(me, 0, voteRequest(4, 10)) // a stale epoch
	n.ExpectSent()
	n.ExpectDecided(me) // votes teach nobody the master
}

// LEASE and RENEW teach a replica the master; a valid lease postpones its
// candidacy past the lease.
func TestChubbyReplicaFollowsMaster(t *testing.T) {
	n := five(t, "chubby", nil)
	n.Jump(3 * T)
	n.Receive(me, 4, lease(1, 50))
	n.ExpectSent()
	n.ExpectDecided(me, 50)
	n.ExpectArmedWithin(me, timerCandidacy, 48*T, 68*T) // L from now, then the wait
	n.Jump(30 * T)
	n.Receive(me, 4, renew(1, 50))
	n.ExpectSent(send(me, 4, renewAck(1, 30)))
	n.ExpectDecided(me, 50)
	n.ExpectArmedWithin(me, timerCandidacy, 85*T, 105*T) // promised to 50 until 80T
	n.Receive(me, 3, lease(0, 40))                       // an older epoch's master, late
	n.ExpectDecided(me, 50)
	n.Receive(me, 3, renew(2, 40)) // another master while promised: refused
	n.ExpectSent()
}

// A candidate whose round closes without a majority is a replica again and
// waits; one that hears the lease of a winner of its epoch or later yields.
func TestChubbyCandidateGivesUp(t *testing.T) {
	t.Run("round closes", func(t *testing.T) {
		n := five(t, "chubby", nil)
		n.Fire(me, timerCandidacy)
		n.Take()
		n.Jump(10 * T)
		n.Fire(me, timerRound)
		n.ExpectSent()
		n.ExpectArmedWithin(me, timerCandidacy, 15*T, 35*T)
		n.Receive(me, 0, chubbyVote(1, 10))
		n.Receive(me, 1, chubbyVote(1, 20)) // too late
		n.ExpectSent()
		n.Fire(me, timerCandidacy) // its voters stay promised to it: it may try again
		n.ExpectSent(toAll(me, 5, voteRequest(2, 30))...)
	})
	t.Run("another won", func(t *testing.T) {
		n := five(t, "chubby", nil)
		n.Fire(me, timerCandidacy)
		n.Take()
		n.Receive(me, 4, lease(1, 50))
		n.ExpectDecided(me, 50)
		n.ExpectArmed(me, timerRound, nodetest.NotArmed)
		n.Receive(me, 0, chubbyVote(1, 10))
		n.Receive(me, 1, chubbyVote(1, 20))
		n.ExpectSent() // no longer a candidate: no LEASE
	})
}

// The classic hazard: a master that slept through the end of its lease must
// not act as master when it wakes. Whatever wakes it first, it is a replica.
func TestChubbyMasterChecksItsLeaseFirst(t *testing.T) {
	n := five(t, "chubby", nil)
	n.Fire(me, timerCandidacy)
	n.Receive(me, 0, chubbyVote(1, 10))
	n.Receive(me, 1, chubbyVote(1, 20))
	n.Take()
	n.Jump(45 * T) // asleep through RENEW (30T) and LEASE_END (40T)
	n.Receive(me, 4, lease(2, 50))
	n.ExpectSent()
	n.ExpectDecided(me, 30, 50)
	n.ExpectArmed(me, timerRenew, nodetest.NotArmed)
	n.ExpectArmed(me, timerLeaseEnd, nodetest.NotArmed)
}

// Two masters at once is what the promises exclude; only a fault they do
// not cover gets there (the checker records the overlap). A master ignores
// the lease of an older or equal epoch and yields to a newer one.
func TestChubbyMasterYieldsToNewerEpoch(t *testing.T) {
	n := five(t, "chubby", nil)
	n.Fire(me, timerCandidacy)
	n.Receive(me, 0, chubbyVote(1, 10))
	n.Receive(me, 1, chubbyVote(1, 20))
	n.Take()
	n.Receive(me, 4, lease(1, 50))
	n.ExpectDecided(me, 30)
	n.ExpectArmed(me, timerLeaseEnd, 40*T)
	n.Receive(me, 4, lease(2, 50))
	n.ExpectDecided(me, 30, 50)
	n.ExpectArmed(me, timerLeaseEnd, nodetest.NotArmed)
	n.ExpectArmed(me, timerRenew, nodetest.NotArmed)
	n.ExpectSent()
}

// A process that starts after the run began has restarted and forgotten its
// promises; it votes for nobody, and stands for nothing, for L + margin.
func TestChubbyRestartKeepsForgottenPromises(t *testing.T) {
	n := five(t, "chubby", nil)
	n.Jump(100 * T)
	n.Restart(me)
	n.ExpectArmedWithin(me, timerCandidacy, 155*T, 175*T)
	n.Receive(me, 0, voteRequest(1, 10))
	n.ExpectSent()
	n.Jump(150 * T)
	n.Receive(me, 0, voteRequest(2, 10))
	n.ExpectSent(send(me, 0, chubbyVote(2, 30)))
}

func TestChubbyIgnoresDetectorAndLies(t *testing.T) {
	n := five(t, "chubby", nil)
	n.Suspect(me, 4)
	n.Receive(me, 0, voteRequest(1, 20)) // 20 is at position 1
	n.Receive(me, 1, lease(1, 50))
	n.ExpectSent()
	n.ExpectDecided(me)
	n.Initiate(me)
	n.ExpectSent(toAll(me, 5, voteRequest(1, 30))...)
}

func TestChubbyParams(t *testing.T) {
	alg, _, err := nodes.Lookup("chubby")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		params nodes.Params
		err    string
	}{
		{nodes.Params{"renew-margin": "40T"}, "renew-margin"},
		{nodes.Params{"wait-min": "30T"}, "wait-max"},
		{nodes.Params{"lease": "-1s"}, "lease"},
		{nodes.Params{"wait-min": "soon"}, "wait-min"},
		{nodes.Params{"ttl": "1s"}, "ttl"},
	} {
		if _, err := alg.New(nodes.Config{Params: tc.params, N: 5, T: T}); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: error %v, want one naming %s", tc.params, err, tc.err)
		}
		if _, err := alg.Quorum.Lease(nodes.Config{Params: tc.params, N: 5, T: T}); err == nil {
			t.Errorf("%v: the lease was read from bad parameters", tc.params)
		}
	}
	for _, tc := range []struct {
		params nodes.Params
		want   time.Duration
	}{{nil, 40 * T}, {nodes.Params{"lease": "2s"}, 2 * time.Second}, {nodes.Params{"lease": "12T"}, 12 * T}} {
		if got, err := alg.Quorum.Lease(nodes.Config{Params: tc.params, N: 5, T: T}); err != nil || got != tc.want {
			t.Errorf("%v: lease %v (%v), want %v", tc.params, got, err, tc.want)
		}
	}
}
