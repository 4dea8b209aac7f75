package ring

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

// net is a tiny synchronous driver for the unit tests of this package: round
// r delivers, in send order, every message sent during round r−1. That is the
// reference model (every message takes exactly T; ties by send order) with
// T = one round, and with no dependency on the simulator. It also lets a test
// hand one process one message and look at exactly what it sent.
type net struct {
	t       *testing.T
	alg     *nodes.Algorithm
	ranks   []nodes.Rank
	procs   []nodes.Machine
	envs    []*fakeEnv
	out     []envelope // sent this round: delivered next round
	round   int
	sent    map[nodes.Kind]int
	total   int
	rerun   int              // messages of restarted runs (run number ≠ 0)
	last    int              // round of the last delivery
	decided [][]nodes.Rank   // every decision of every process, in order
	crashed []bool           // deliveries to a crashed process are lost
	actions map[int][]func() // run at the start of a round, before its deliveries
}

type envelope struct {
	from, to int
	m        nodes.Message
}

func ranks(ids ...uint64) []nodes.Rank {
	rs := make([]nodes.Rank, len(ids))
	for i, id := range ids {
		rs[i] = nodes.RankOf(id)
	}
	return rs
}

// newNet builds a ring of the named algorithm with the given ranks by
// position and starts every process.
func newNet(t *testing.T, name string, rs []nodes.Rank) *net {
	t.Helper()
	n := buildNet(t, name, rs)
	n.boot()
	return n
}

// buildNet builds the ring without starting it, so that a test can crash
// processes first.
func buildNet(t *testing.T, name string, rs []nodes.Rank) *net {
	t.Helper()
	alg, variant, err := nodes.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	newMachine, err := alg.New(nodes.Config{Variant: variant, N: len(rs), T: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	n := &net{
		t: t, alg: alg, ranks: rs,
		sent:    map[nodes.Kind]int{},
		decided: make([][]nodes.Rank, len(rs)),
		crashed: make([]bool, len(rs)),
		actions: map[int][]func(){},
	}
	for i := range rs {
		n.procs = append(n.procs, newMachine())
		n.envs = append(n.envs, &fakeEnv{n: n, p: i})
	}
	return n
}

// boot starts every process that has not crashed.
func (n *net) boot() {
	for i, p := range n.procs {
		if !n.crashed[i] {
			p.Start(n.envs[i])
		}
	}
}

func (n *net) size() int        { return len(n.ranks) }
func (n *net) succ(p int) int   { return (p + 1) % n.size() }
func (n *net) pred(p int) int   { return (p + n.size() - 1) % n.size() }
func (n *net) initiate(p int)   { n.procs[p].Initiate(n.envs[p]) }
func (n *net) crash(p int)      { n.crashed[p] = true }
func (n *net) suspect(p, q int) { n.procs[p].Suspect(n.envs[p], nodes.PeerID(q)) }

// at schedules f at the start of round r.
func (n *net) at(r int, f func()) { n.actions[r] = append(n.actions[r], f) }

// receive hands process p one message from process from, as a delivery would.
func (n *net) receive(p, from int, m nodes.Message) {
	n.procs[p].Receive(n.envs[p], nodes.PeerID(from), m)
}

// take returns and forgets the messages sent since the last take (or since
// the last round ran).
func (n *net) take() []envelope {
	out := n.out
	n.out = nil
	return out
}

// run delivers rounds until nothing is in flight and no action is pending.
func (n *net) run() {
	n.t.Helper()
	limit := 100*n.size() + 100
	for len(n.out) > 0 || len(n.actions) > 0 {
		n.round++
		if n.round > limit {
			n.t.Fatalf("%s: no quiescence after %d rounds", n.alg.Name, limit)
		}
		batch := n.take()
		for _, f := range n.actions[n.round] {
			f()
		}
		delete(n.actions, n.round)
		for _, e := range batch {
			n.last = n.round
			if !n.crashed[e.to] {
				n.receive(e.to, e.from, e.m)
			}
		}
	}
}

// leaders returns the last decision of every live process, and whether each
// live process decided exactly once.
func (n *net) leaders() (last []nodes.Rank, once bool) {
	once = true
	for p, ds := range n.decided {
		if n.crashed[p] {
			continue
		}
		if len(ds) != 1 {
			once = false
		}
		if len(ds) == 0 {
			last = append(last, nodes.Rank{})
			continue
		}
		last = append(last, ds[len(ds)-1])
	}
	return last, once
}

// checkElected fails unless every live process's last decision is want.
func (n *net) checkElected(want nodes.Rank) {
	n.t.Helper()
	last, _ := n.leaders()
	for i, l := range last {
		if l != want {
			n.t.Fatalf("%s ranks %v: live process %d decided %v, want %v (all: %v)", n.alg.Name, n.ranks, i, l, want, last)
		}
	}
}

func highest(rs []nodes.Rank) nodes.Rank {
	return slices.MaxFunc(rs, nodes.Rank.Compare)
}

// fakeEnv is one process's view of net.
type fakeEnv struct {
	n *net
	p int
}

func (e *fakeEnv) Self() nodes.Rank { return e.n.ranks[e.p] }

func (e *fakeEnv) Peers() []nodes.Peer {
	s := nodes.Peer{ID: nodes.PeerID(e.n.succ(e.p)), Rank: e.n.ranks[e.n.succ(e.p)]}
	if e.n.alg.Topology == nodes.RingBi {
		return []nodes.Peer{s, {ID: nodes.PeerID(e.n.pred(e.p)), Rank: e.n.ranks[e.n.pred(e.p)]}}
	}
	return []nodes.Peer{s}
}

func (e *fakeEnv) After(p nodes.PeerID) (nodes.Peer, bool) {
	if p < 0 || int(p) >= e.n.size() {
		return nodes.Peer{}, false
	}
	q := e.n.succ(int(p))
	return nodes.Peer{ID: nodes.PeerID(q), Rank: e.n.ranks[q]}, true
}

func (e *fakeEnv) Now() time.Duration { return time.Duration(e.n.round) * time.Millisecond }

func (e *fakeEnv) Send(to nodes.PeerID, m nodes.Message) {
	if to < 0 || int(to) >= e.n.size() {
		e.n.t.Fatalf("process %d sent %s to peer %d, which does not exist", e.p, m.Kind, to)
	}
	e.n.sent[m.Kind]++
	e.n.total++
	switch m.Kind {
	case kindElection, kindElected:
		if m.A != 0 {
			e.n.rerun++
		}
	case kindProbe, kindReply:
		if m.A>>phaseBits != 0 { // hs: the run number above the phase
			e.n.rerun++
		}
	}
	e.n.out = append(e.n.out, envelope{from: e.p, to: int(to), m: m})
}

func (e *fakeEnv) SetTimer(time.Duration, nodes.TimerID) {
	e.n.t.Fatal("a ring algorithm armed a timer")
}

func (e *fakeEnv) CancelTimer(nodes.TimerID) { e.n.t.Fatal("a ring algorithm cancelled a timer") }

func (e *fakeEnv) Decide(l nodes.Rank) { e.n.decided[e.p] = append(e.n.decided[e.p], l) }

func (e *fakeEnv) Rand() *rand.Rand {
	e.n.t.Fatal("a ring algorithm drew randomness")
	return nil
}
