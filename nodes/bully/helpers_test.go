package bully

import (
	"math/rand/v2"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

// The unit tests of this package run on nodetest's network: the reference
// model of ALGORITHMS.md (every message takes exactly T; at one instant,
// actions, then deliveries in send order, then timers in arming order),
// with no dependency on the simulator.

// T is the network's one-way latency.
const T = nodetest.DefaultT

type envelope = nodetest.Envelope

// newNet builds and starts processes with the given ids (position i has id
// ids[i]) running algorithm "name" or "name/variant" with params.
func newNet(t *testing.T, spec string, params nodes.Params, ids ...uint64) *nodetest.Net {
	t.Helper()
	n := nodetest.Build(t, spec, params, ids...)
	n.Start()
	return n
}

// ascending returns the ids 1..n (position i holds id i+1).
func ascending(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	return ids
}

// shuffled returns the ids 1..n in a random order drawn from seed.
func shuffled(n int, seed uint64) []uint64 {
	ids := ascending(n)
	r := rand.New(rand.NewPCG(seed, 1))
	r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}
