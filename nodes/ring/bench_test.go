package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

// nopEnv is the cheapest possible Env, so the benchmarks below measure the
// algorithm's own cost per message and nothing of a runtime.
type nopEnv struct {
	self  nodes.Rank
	peers []nodes.Peer
	sent  int
}

func (e *nopEnv) Self() nodes.Rank                      { return e.self }
func (e *nopEnv) Peers() []nodes.Peer                   { return e.peers }
func (e *nopEnv) After(nodes.PeerID) (nodes.Peer, bool) { return nodes.Peer{}, false }
func (e *nopEnv) Now() time.Duration                    { return 0 }
func (e *nopEnv) Send(nodes.PeerID, nodes.Message)      { e.sent++ }
func (e *nopEnv) SetTimer(time.Duration, nodes.TimerID) {}
func (e *nopEnv) CancelTimer(nodes.TimerID)             {}
func (e *nopEnv) Decide(nodes.Rank)                     {}
func (e *nopEnv) Rand() *rand.Rand                      { return nil }

// BenchmarkReceive is the hot path of each unidirectional algorithm: a
// process forwarding a higher ELECTION. It must not allocate.
func BenchmarkReceive(b *testing.B) {
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator", "lcr"} {
		b.Run(name, func(b *testing.B) {
			alg, _, _ := nodes.Lookup(name)
			newMachine, err := alg.New(nodes.Config{N: 2})
			if err != nil {
				b.Fatal(err)
			}
			env := &nopEnv{self: nodes.RankOf(5), peers: []nodes.Peer{{ID: 1, Rank: nodes.RankOf(9)}}}
			p := newMachine()
			p.Start(env)
			m := nodes.Message{Kind: kindElection, Rank: nodes.RankOf(9), Aux: nodes.RankOf(9)}
			b.ReportAllocs()
			for b.Loop() {
				p.Receive(env, 0, m)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// floorEnv is the least a runtime can do for a ring election under
// constant latency, with one message in flight at a time: Self reads a rank
// from an array, Send keeps the one pending message in a slot, Decide
// stores the leader's identity. No clock, no event queue, no counts by
// kind, no sizes, no checker, no record.
type floorEnv struct {
	p       int32
	n       int32
	ranks   []nodes.Rank
	peer    [1]nodes.Peer
	pending bool
	to      int32
	msg     nodes.Message
	leader  []uint64
	sent    int64
}

func (e *floorEnv) Self() nodes.Rank { return e.ranks[e.p] }
func (e *floorEnv) Peers() []nodes.Peer {
	next := (e.p + 1) % e.n
	e.peer[0] = nodes.Peer{ID: nodes.PeerID(next), Rank: e.ranks[next]}
	return e.peer[:]
}
func (e *floorEnv) After(nodes.PeerID) (nodes.Peer, bool) { return nodes.Peer{}, false }
func (e *floorEnv) Now() time.Duration                    { return 0 }
func (e *floorEnv) SetTimer(time.Duration, nodes.TimerID) {}
func (e *floorEnv) CancelTimer(nodes.TimerID)             {}
func (e *floorEnv) Rand() *rand.Rand                      { return nil }
func (e *floorEnv) Decide(l nodes.Rank)                   { e.leader[e.p] = l.ID[3] }
func (e *floorEnv) Send(to nodes.PeerID, m nodes.Message) {
	e.pending, e.to, e.msg = true, int32(to), m
	e.sent++
}

// BenchmarkElectionFloor is what the deliveries of one chang-roberts
// election (the successor of the highest initiating: 3N−1 messages, the
// issue "Scale without surprises"'s run) cost through the contract alone:
// the registered machines, called through nodes.Machine, acting through
// nodes.Env, with floorEnv behind it. No runtime that keeps the contract
// runs the election loop faster; the simulator's own bookkeeping is what
// it spends above this. Set-up (ranks, machines, Start) is not timed.
func BenchmarkElectionFloor(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { electionFloor(b, n) })
	}
}

func electionFloor(b *testing.B, n int) {
	alg, _, err := nodes.Lookup("chang-roberts")
	if err != nil {
		b.Fatal(err)
	}
	perm := rand.New(rand.NewPCG(1, 0)).Perm(n)
	env := &floorEnv{n: int32(n), ranks: make([]nodes.Rank, n), leader: make([]uint64, n)}
	highest := 0
	for i, v := range perm {
		env.ranks[i] = nodes.RankOf(uint64(v + 1))
		if v > perm[highest] {
			highest = i
		}
	}
	ms := make([]nodes.Machine, n)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		newMachine, err := alg.New(nodes.Config{N: n, Batch: &nodes.Batch{}})
		if err != nil {
			b.Fatal(err)
		}
		for i := range ms {
			ms[i] = newMachine()
			env.p = int32(i)
			ms[i].Start(env)
		}
		env.sent = 0
		clear(env.leader)
		b.StartTimer()
		env.p = int32((highest + 1) % n)
		ms[env.p].Initiate(env)
		for env.pending {
			env.pending = false
			from := env.p
			env.p = env.to
			ms[env.p].Receive(env, nodes.PeerID(from), env.msg)
		}
	}
	b.StopTimer()
	if want := int64(3*n - 1); env.sent != want {
		b.Fatalf("%d messages, want %d", env.sent, want)
	}
	for p, l := range env.leader {
		if l != uint64(n) {
			b.Fatalf("process %d decided %d, want %d", p, l, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*env.sent), "ns/msg")
}
