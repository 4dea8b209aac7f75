package quorum

import (
	"fmt"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
	"github.com/electbench/electbench/nodes/quorum/tally"
	"github.com/electbench/electbench/nodes/trial"
)

// T is the network's mean one-way latency.
const T = nodetest.DefaultT

type envelope = nodetest.Envelope

// net is nodetest's network, every process on the complete topology, with
// this package's own, deliberately simple, safety monitor — an independent
// second reading of the rules nodes/check applies: at most one
// process sends the Leader kind per term, it had grants from a majority
// delivered first, and no two lease claims overlap.
type net struct {
	*nodetest.Net
	t *testing.T

	lease      time.Duration
	leaderOf   map[int64]int             // term → position of the first process to act as its leader
	granted    map[[2]int64]map[int]bool // (receiver, term) → voters whose grant was delivered
	leases     map[int][2]time.Duration  // position → its latest lease [start, end)
	violations []string
}

// newNet builds and starts processes with the given ids (position i has id
// ids[i]) running algorithm spec with params.
func newNet(t *testing.T, spec string, params nodes.Params, ids ...uint64) *net {
	t.Helper()
	n := build(t, spec, params, ids...)
	n.Start()
	return n
}

// build prepares a net without starting it, so that a test can cut links
// first.
func build(t *testing.T, spec string, params nodes.Params, ids ...uint64) *net {
	t.Helper()
	return buildSeeded(t, spec, params, 0, ids...)
}

// buildSeeded is build with the network's seed: every process's random
// draws and the latency's.
func buildSeeded(t *testing.T, spec string, params nodes.Params, seed uint64, ids ...uint64) *net {
	t.Helper()
	n := &net{
		Net: nodetest.New(t, nodetest.Config{Name: spec, Params: params, Ranks: nodetest.Ranks(ids...), Seed: seed}),
		t:   t, leaderOf: map[int64]int{}, granted: map[[2]int64]map[int]bool{}, leases: map[int][2]time.Duration{},
	}
	if lease := n.Algorithm().Quorum.Lease; lease != nil {
		_, variant, _ := nodes.Lookup(spec)
		var err error
		if n.lease, err = lease(nodes.Config{Variant: variant, Params: params, N: len(ids), T: T}); err != nil {
			t.Fatal(err)
		}
	}
	n.Observe(n.observe)
	return n
}

// ascending returns the ids 1..k (position i holds id i+1).
func ascending(k int) []uint64 {
	ids := make([]uint64, k)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	return ids
}

// belief is p's latest decision (0: none).
func (n *net) belief(p int) uint64 {
	v, _ := n.Leader(p).ID.Small()
	return v
}

// safe fails the test on any violation the monitor saw.
func (n *net) safe() {
	n.t.Helper()
	if len(n.violations) > 0 {
		n.t.Fatalf("%d safety violations, the first: %s", len(n.violations), n.violations[0])
	}
}

func (n *net) observe(e trial.Event) {
	switch e.Kind {
	case trial.EvSend:
		if e.P == e.Q {
			n.t.Fatalf("process %d sent %s to itself", e.P, e.Msg.Kind)
		}
		n.observeSend(e.At, int(e.P), e.Msg)
	case trial.EvRecv:
		n.observeDelivery(int(e.Q), int(e.P), e.Msg)
	}
}

func (n *net) observeSend(now time.Duration, from int, m nodes.Message) {
	q := n.Algorithm().Quorum
	if q.IsLeader(m.Kind) {
		if l, ok := n.leaderOf[m.A]; !ok {
			n.leaderOf[m.A] = from
			if votes := len(n.granted[[2]int64{int64(from), m.A}]) + 1; votes < tally.Majority(n.Size()) {
				n.violations = append(n.violations, fmt.Sprintf("%v: process %d leads term %d with %d votes", now, from, m.A, votes))
			}
		} else if l != from {
			n.violations = append(n.violations, fmt.Sprintf("%v: term %d has leaders %d and %d", now, m.A, l, from))
		}
		if n.lease > 0 {
			for p, s := range n.leases {
				if p != from && s[1] > now {
					n.violations = append(n.violations, fmt.Sprintf("%v: %d claims a lease while %d holds %v", now, from, p, s))
				}
			}
			s, ok := n.leases[from]
			if !ok || now >= s[1] {
				s[0] = now
			}
			s[1] = now + n.lease
			n.leases[from] = s
		}
	}
}

func (n *net) observeDelivery(to, from int, m nodes.Message) {
	if m.Kind != n.Algorithm().Quorum.Grant || m.B == 0 {
		return
	}
	k := [2]int64{int64(to), m.A}
	if n.granted[k] == nil {
		n.granted[k] = map[int]bool{}
	}
	n.granted[k][from] = true
}
