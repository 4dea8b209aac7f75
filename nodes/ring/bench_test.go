package ring

import (
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
