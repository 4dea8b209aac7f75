package quorum

import (
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

// Each test hands one process one event and checks exactly what it sent,
// armed and decided. Comments cite ALGORITHMS.md by line, and Raft's
// Figure 2 where ALGORITHMS.md defers to the paper.

func rank(id uint64) nodes.Rank { return nodes.RankOf(id) }

func requestVote(term int64, cand uint64) nodes.Message {
	return nodes.Message{Kind: kindRequestVote, Rank: rank(cand), A: term}
}

func raftVote(term int64, voter uint64, granted bool) nodes.Message {
	m := nodes.Message{Kind: kindVote, Rank: rank(voter), A: term}
	if granted {
		m.B = 1
	}
	return m
}

func heartbeat(term int64, l uint64) nodes.Message {
	return nodes.Message{Kind: kindHeartbeat, Rank: rank(l), A: term}
}

func heartbeatAck(term int64, f uint64) nodes.Message {
	return nodes.Message{Kind: kindHeartbeatAck, Rank: rank(f), A: term}
}

func send(from, to int, m nodes.Message) envelope { return envelope{From: from, To: to, Msg: m} }

// toAll is what process p sends when it sends m to everyone else.
func toAll(p, n int, m nodes.Message) []envelope {
	var out []envelope
	for q := range n {
		if q != p {
			out = append(out, send(p, q, m))
		}
	}
	return out
}

// Five processes, ids 10..50 at positions 0..4; the one under test is
// position 2 (id 30).
const me = 2

func five(t *testing.T, spec string, params nodes.Params) *net {
	return newNet(t, spec, params, 10, 20, 30, 40, 50)
}

// ALGORITHMS.md, "raft": "election timeout drawn uniformly from [Tmin, Tmax]
// (default 150–300 ms scaled to the network)" — 20T..40T.
func TestRaftStartsAsFollower(t *testing.T) {
	n := five(t, "raft", nil)
	n.ExpectSent()
	for p := range 5 {
		n.ExpectDecided(p)
		n.ExpectArmedWithin(p, timerElection, 20*T, 40*T)
		n.ExpectArmed(p, timerHeartbeat, nodetest.NotArmed)
	}
}

// The draws cover [tmin, tmax] and nothing outside it.
func TestRaftTimeoutsAreUniform(t *testing.T) {
	lo, hi := 100*time.Millisecond, 110*time.Millisecond
	n := five(t, "raft", nodes.Params{"tmin": "100ms", "tmax": "110ms"})
	seen := map[time.Duration]int{}
	least, most := hi, lo
	for range 5000 {
		n.Fire(me, timerElection)
		at, _ := n.Armed(me, timerElection)
		if at < lo || at > hi {
			t.Fatalf("election timeout %v outside [%v, %v]", at, lo, hi)
		}
		seen[at/time.Millisecond]++
		least, most = min(least, at), max(most, at)
	}
	n.Take()
	if least > lo+50*time.Microsecond || most < hi-50*time.Microsecond {
		t.Fatalf("timeouts spanned [%v, %v] of [%v, %v]", least, most, lo, hi)
	}
	for ms := 100 * time.Millisecond / time.Millisecond; ms < 110; ms++ {
		if c := seen[ms]; c < 400 || c > 600 { // 500 expected in each millisecond
			t.Errorf("%d of 5000 timeouts in [%dms, %dms)", c, ms, ms+1)
		}
	}
}

// Figure 2, candidates: "increment currentTerm, vote for self, reset election
// timer, send RequestVote RPCs to all other servers"; ALGORITHMS.md, "raft"
// "majority wins"; "leaders send heartbeats every Tmin/3".
func TestRaftCampaignAndWin(t *testing.T) {
	n := five(t, "raft", nil)
	n.Fire(me, timerElection)
	n.ExpectSent(toAll(me, 5, requestVote(1, 30))...)
	n.ExpectArmedWithin(me, timerElection, 20*T, 40*T)
	n.Receive(me, 0, raftVote(1, 10, true))
	n.Receive(me, 0, raftVote(1, 10, true)) // a duplicate counts once
	n.Receive(me, 1, raftVote(1, 20, false))
	n.Receive(me, 4, raftVote(0, 50, true)) // a vote of another term does not count
	n.ExpectSent()
	n.ExpectDecided(me)
	n.Receive(me, 3, raftVote(1, 40, true)) // itself, 10 and 40: three of five
	n.ExpectSent(toAll(me, 5, heartbeat(1, 30))...)
	n.ExpectDecided(me, 30)
	n.ExpectArmed(me, timerElection, nodetest.NotArmed)
	n.ExpectArmed(me, timerHeartbeat, 20*T/3)
	n.Receive(me, 4, raftVote(1, 50, true)) // late votes change nothing
	n.ExpectSent()
	n.Jump(20 * T / 3)
	n.Fire(me, timerHeartbeat)
	n.ExpectSent(toAll(me, 5, heartbeat(1, 30))...)
	n.ExpectArmed(me, timerHeartbeat, 2*(20*T/3))
	n.ExpectDecided(me, 30) // the same leader is not decided again
}

// A candidate that loses waits for its timer and stands again in a new term.
func TestRaftLostCampaignStandsAgain(t *testing.T) {
	n := five(t, "raft", nil)
	n.Fire(me, timerElection)
	n.Take()
	for _, p := range []int{0, 1, 3} {
		n.Receive(me, p, raftVote(1, uint64(10*(p+1)), false))
	}
	n.ExpectSent()
	n.Fire(me, timerElection)
	n.ExpectSent(toAll(me, 5, requestVote(2, 30))...)
}

// ALGORITHMS.md, "raft": "one vote per term ... a vote is granted to any
// candidate whose term is at least the voter's"; Figure 2: granting a vote
// resets the election timer.
func TestRaftVoting(t *testing.T) {
	n := five(t, "raft", nil)
	n.Jump(5 * T)
	n.Receive(me, 0, requestVote(1, 10))
	n.ExpectSent(send(me, 0, raftVote(1, 30, true)))
	n.ExpectArmedWithin(me, timerElection, 25*T, 45*T)
	n.Receive(me, 1, requestVote(1, 20)) // one vote per term
	n.ExpectSent(send(me, 1, raftVote(1, 30, false)))
	n.Receive(me, 0, requestVote(1, 10)) // the same candidate again: the same vote
	n.ExpectSent(send(me, 0, raftVote(1, 30, true)))
	n.Receive(me, 1, requestVote(3, 20)) // a higher term: a new vote
	n.ExpectSent(send(me, 1, raftVote(3, 30, true)))
	n.Receive(me, 0, requestVote(2, 10)) // a stale term: refused, with the current term
	n.ExpectSent(send(me, 0, raftVote(3, 30, false)))
	n.ExpectDecided(me) // voting teaches nobody the leader
}

// Figure 2, followers: a heartbeat from the leader of the current term
// resets the election timer; the leader is decided once. A stale leader's
// heartbeat is answered with the newer term.
func TestRaftHeartbeats(t *testing.T) {
	n := five(t, "raft", nil)
	n.Receive(me, 4, heartbeat(2, 50))
	n.ExpectSent(send(me, 4, heartbeatAck(2, 30)))
	n.ExpectDecided(me, 50)
	n.Jump(10 * T)
	n.Receive(me, 4, heartbeat(2, 50))
	n.ExpectSent(send(me, 4, heartbeatAck(2, 30)))
	n.ExpectDecided(me, 50)
	n.ExpectArmedWithin(me, timerElection, 30*T, 50*T)
	before, _ := n.Armed(me, timerElection)
	n.Receive(me, 3, heartbeat(1, 40)) // a deposed leader
	n.ExpectSent(send(me, 3, heartbeatAck(2, 30)))
	n.ExpectDecided(me, 50)
	n.ExpectArmed(me, timerElection, before) // and no reset
}

// Figure 2, candidates: "if AppendEntries RPC received from new leader:
// convert to follower".
func TestRaftCandidateYieldsToLeaderOfItsTerm(t *testing.T) {
	n := five(t, "raft", nil)
	n.Fire(me, timerElection)
	n.Take()
	n.Receive(me, 3, heartbeat(1, 40))
	n.ExpectSent(send(me, 3, heartbeatAck(1, 30)))
	n.ExpectDecided(me, 40)
	n.Receive(me, 0, raftVote(1, 10, true))
	n.Receive(me, 1, raftVote(1, 20, true)) // would have been a majority
	n.ExpectSent()
	n.ExpectDecided(me, 40)
}

// Figure 2, all servers: "if RPC request or response contains term T >
// currentTerm: set currentTerm = T, convert to follower".
func TestRaftLeaderStepsDownOnHigherTerm(t *testing.T) {
	for name, m := range map[string]nodes.Message{
		"heartbeat ack": heartbeatAck(2, 40),
		"vote request":  requestVote(2, 40),
		"heartbeat":     heartbeat(2, 40),
	} {
		t.Run(name, func(t *testing.T) {
			n := five(t, "raft", nil)
			n.Fire(me, timerElection)
			n.Receive(me, 0, raftVote(1, 10, true))
			n.Receive(me, 1, raftVote(1, 20, true))
			n.Take()
			n.Receive(me, 3, m)
			n.Take()
			n.ExpectArmed(me, timerHeartbeat, nodetest.NotArmed)
			n.ExpectArmedWithin(me, timerElection, 20*T, 40*T)
			n.Receive(me, 0, requestVote(2, 10)) // term 2 is this process's now
			want := m.Kind != kindRequestVote    // unless it already voted in it
			n.ExpectSent(send(me, 0, raftVote(2, 30, want)))
		})
	}
}

// A message whose rank does not match its link is dropped, before even its
// term is read; so are ranks of strangers.
func TestRaftDropsLies(t *testing.T) {
	n := five(t, "raft", nil)
	n.Receive(me, 0, requestVote(5, 20)) // 20 is at position 1
	n.Receive(me, 0, requestVote(5, 99))
	n.Receive(me, 4, heartbeat(5, 30)) // this process's own rank
	n.ExpectSent()
	n.ExpectDecided(me)
	n.Receive(me, 0, requestVote(1, 10)) // term 1 is still open
	n.ExpectSent(send(me, 0, raftVote(1, 30, true)))
}

func TestRaftInitiateAndSuspect(t *testing.T) {
	n := five(t, "raft", nil)
	n.Suspect(me, 4) // the election timeout is raft's detector
	n.ExpectSent()
	n.Initiate(me)
	n.ExpectSent(toAll(me, 5, requestVote(1, 30))...)
	n.Receive(me, 0, raftVote(1, 10, true))
	n.Receive(me, 1, raftVote(1, 20, true))
	n.Take()
	n.Initiate(me) // a leader does not stand again
	n.ExpectSent()
}

// Two leaders in one term cannot happen while votes survive crashes; after
// a restart that forgot a vote it can, and the leader that hears the other
// yields to it rather than carry on.
func TestRaftLeaderYieldsToAnotherOfItsTerm(t *testing.T) {
	n := five(t, "raft", nil)
	n.Fire(me, timerElection)
	n.Receive(me, 0, raftVote(1, 10, true))
	n.Receive(me, 1, raftVote(1, 20, true))
	n.Take()
	n.Receive(me, 4, heartbeat(1, 50))
	n.ExpectSent(send(me, 4, heartbeatAck(1, 30)))
	n.ExpectDecided(me, 30, 50)
	n.ExpectArmed(me, timerHeartbeat, nodetest.NotArmed)
	n.ExpectArmedWithin(me, timerElection, 20*T, 40*T)
}

func TestRaftParams(t *testing.T) {
	alg, _, err := nodes.Lookup("raft")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		params nodes.Params
		err    string
	}{
		{nodes.Params{"tmin": "300ms", "tmax": "150ms"}, "tmax"},
		{nodes.Params{"tmin": "0T"}, "tmin"},
		{nodes.Params{"tmin": "x"}, "tmin"},
		{nodes.Params{"heartbeat": "-1ms"}, "heartbeat"},
		{nodes.Params{"tmin": "2ns", "tmax": "2ns"}, "tmin/3"},
		{nodes.Params{"nope": "1"}, "nope"},
		{nodes.Params{"heartbeat": "tmin/0"}, "tmin/K"},
		{nodes.Params{"heartbeat": "tmin/x"}, "tmin/K"},
		{nodes.Params{"logs": "-1"}, "logs"},
		{nodes.Params{"persist": "-1ms"}, "persist"},
		{nodes.Params{"persist": "soon"}, "persist"},
		{nodes.Params{"logs": "many"}, "logs"},
	} {
		if _, err := alg.New(nodes.Config{Params: tc.params, N: 5, T: T}); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: error %v, want one naming %s", tc.params, err, tc.err)
		}
	}
	if _, err := alg.New(nodes.Config{Variant: "fast", N: 5, T: T}); err == nil {
		t.Error("an unknown variant was accepted")
	}
	for _, tc := range []struct {
		params nodes.Params
		want   time.Duration
	}{
		{nil, 20 * T / 3},
		{nodes.Params{"heartbeat": "tmin/3"}, 20 * T / 3},
		{nodes.Params{"tmin": "150ms", "tmax": "300ms"}, 50 * time.Millisecond},
		{nodes.Params{"heartbeat": "3T"}, 3 * T},
		{nodes.Params{"heartbeat": "25ms"}, 25 * time.Millisecond},
		{nodes.Params{"tmin": "150ms", "tmax": "155ms", "heartbeat": "tmin/2"}, 75 * time.Millisecond}, // Figure 16
	} {
		n := five(t, "raft", tc.params)
		n.Fire(me, timerElection)
		n.Receive(me, 0, raftVote(1, 10, true))
		n.Receive(me, 1, raftVote(1, 20, true))
		if got, _ := n.Armed(me, timerHeartbeat); got != tc.want {
			t.Errorf("%v: heartbeat every %v, want %v", tc.params, got, tc.want)
		}
	}
}

func requestVoteWithLog(term int64, cand uint64, last int64) nodes.Message {
	m := requestVote(term, cand)
	m.B = last
	return m
}

// Figure 2, RequestVote receiver: "If votedFor is null or candidateId, and
// candidate's log is at least as up-to-date as receiver's log, grant vote";
// §5.4.1: with the same last term, "whichever log is longer is more
// up-to-date". The logs parameter draws each server's last-log index.
func TestRaftUpToDateVote(t *testing.T) {
	for _, tc := range []struct {
		cand, voter int64
		grant       bool
	}{{5, 4, true}, {5, 5, true}, {4, 5, false}, {0, 0, true}, {0, 1, false}} {
		if got := upToDate(tc.cand, tc.voter); got != tc.grant {
			t.Errorf("upToDate(%d, %d) = %v", tc.cand, tc.voter, got)
		}
	}
	n := five(t, "raft", nodes.Params{"logs": "1000"})
	mine := n.Machine(me).(*raft).lastIndex
	if mine < 1 || mine > 1000 {
		t.Fatalf("last-log index %d outside 1..1000", mine)
	}
	// A shorter log is refused, and the refusal leaves the timer alone.
	before, _ := n.Armed(me, timerElection)
	n.Receive(me, 0, requestVoteWithLog(1, 10, mine-1))
	n.ExpectSent(send(me, 0, raftVote(1, 30, false)))
	if after, _ := n.Armed(me, timerElection); after != before {
		t.Errorf("a refused vote moved the election timer from %v to %v", before, after)
	}
	// An equal log in the same term gets the vote.
	n.Receive(me, 1, requestVoteWithLog(1, 20, mine))
	n.ExpectSent(send(me, 1, raftVote(1, 30, true)))
	// Its own candidacy carries its last-log index.
	n.Fire(me, timerElection)
	n.ExpectSent(toAll(me, 5, requestVoteWithLog(2, 30, mine))...)
}

// Figure 2: persistent state is "updated on stable storage before
// responding to RPCs". With persist, a VOTE leaves that long after the
// decision, in order, and the write is not a timeout of the election.
func TestRaftPersistDelaysVotes(t *testing.T) {
	n := five(t, "raft", nodes.Params{"persist": "5ms"})
	n.Receive(me, 0, requestVote(1, 10))
	n.ExpectSent()
	n.ExpectArmed(me, timerPersist, 5*time.Millisecond)
	n.Receive(me, 1, requestVote(1, 20)) // refused: it voted for 10 in term 1
	n.ExpectSent()
	n.RunUntil(5 * time.Millisecond)
	n.ExpectSent(send(me, 0, raftVote(1, 30, true)), send(me, 1, raftVote(1, 30, false)))
	n.ExpectArmed(me, timerPersist, nodetest.NotArmed)
	if f := n.Fired()["PERSIST"]; f != 1 {
		t.Errorf("PERSIST fired %d times, want 1", f)
	}
}
