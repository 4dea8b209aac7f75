package ring

import (
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
	"github.com/electbench/electbench/nodes/trial"
)

// The unit tests of this package run on nodetest's network: the reference
// model of ALGORITHMS.md (every message takes exactly T; ties by send
// order), with no dependency on the simulator. net adds what ring tests
// share: positions round the ring, the checks of an election's outcome, and
// the guard that a ring algorithm neither arms a timer nor draws randomness.
type net struct {
	*nodetest.Net
	t *testing.T
}

type envelope = nodetest.Envelope

// T is the network's one-way latency: one round of the old synchronous
// driver.
const T = nodetest.DefaultT

func ranks(ids ...uint64) []nodes.Rank { return nodetest.Ranks(ids...) }

// newNet builds a ring of the named algorithm with the given ranks by
// position and starts every process.
func newNet(t *testing.T, name string, rs []nodes.Rank) *net {
	t.Helper()
	n := buildNet(t, name, rs)
	n.Start()
	return n
}

// buildNet builds the ring without starting it, so that a test can crash
// processes first.
func buildNet(t *testing.T, name string, rs []nodes.Rank) *net {
	t.Helper()
	return &net{Net: nodetest.New(t, nodetest.Config{Name: name, Ranks: rs}), t: t}
}

func (n *net) pred(p int) int { return (p + n.Size() - 1) % n.Size() }

// run delivers until nothing is in flight and no action is pending.
func (n *net) run() {
	n.t.Helper()
	n.Stabilize(time.Duration(100*n.Size()+100) * T)
	n.pure()
}

// pure fails the test if a ring algorithm armed a timer or drew randomness:
// the family needs neither.
func (n *net) pure() {
	n.t.Helper()
	if n.TimersArmed() != 0 || n.RandCalls() != 0 {
		n.t.Fatalf("%s armed %d timers and drew randomness %d times", n.Algorithm().Name, n.TimersArmed(), n.RandCalls())
	}
}

// decisions is every decision of every process, in order.
func (n *net) decisions() [][]nodes.Rank {
	out := make([][]nodes.Rank, n.Size())
	for p := range out {
		out[p] = n.Decided(p)
	}
	return out
}

// rerun counts the messages of restarted runs (run number ≠ 0).
func (n *net) rerun() int {
	count := 0
	for _, e := range n.Events() {
		if e.Kind != trial.EvSend {
			continue
		}
		switch m := e.Msg; m.Kind {
		case kindElection, kindElected:
			if m.A != 0 {
				count++
			}
		case kindProbe, kindReply:
			if m.A>>phaseBits != 0 { // hs: the run number above the phase
				count++
			}
		}
	}
	return count
}

// turnaround is the time of the last delivery of an election message, in T.
func (n *net) turnaround() int { return int(n.LastElection() / T) }

// leaders returns the last decision of every live process, and whether each
// live process decided exactly once.
func (n *net) leaders() (last []nodes.Rank, once bool) {
	once = true
	for p, ds := range n.decisions() {
		if n.Crashed(p) {
			continue
		}
		if len(ds) != 1 {
			once = false
		}
		last = append(last, n.Leader(p))
	}
	return last, once
}

// checkElected fails unless every live process's last decision is want.
func (n *net) checkElected(want nodes.Rank) {
	n.t.Helper()
	last, _ := n.leaders()
	for i, l := range last {
		if l != want {
			n.t.Fatalf("%s ranks %v: live process %d decided %v, want %v (all: %v)", n.Algorithm().Name, n.ranks(), i, l, want, last)
		}
	}
}

func (n *net) ranks() []nodes.Rank {
	rs := make([]nodes.Rank, n.Size())
	for p := range rs {
		rs[p] = n.Rank(p)
	}
	return rs
}

func highest(rs []nodes.Rank) nodes.Rank {
	return slices.MaxFunc(rs, nodes.Rank.Compare)
}
