package mutex

import (
	"time"

	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

// Golden transcripts of small runs on nodetest's network (the reference
// model: every message takes exactly T), one per algorithm, under
// testdata/ (go test ./nodes/mutex -run Golden -rewrite regenerates them;
// review before committing). Four processes, ids 1..4 by position.

const T = nodetest.DefaultT

func ascending(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	return ids
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		params     nodes.Params
		requesters []int
		until      int // in T; 0: until the run comes to rest
	}{
		// ALGORITHMS.md, central: REQUEST, GRANT to 0 at 2T, RELEASE,
		// GRANT to 1 2T after 0 leaves.
		{"central", "central", nil, []int{0, 1}, 0},
		// token-ring: the token from 3 reaches 0 at 1T; 2 gets it 2T
		// after 0 leaves; one TOKEN per hop.
		{"token-ring", "token-ring", nil, []int{0, 2}, 12},
		// ricart-agrawala: 0 wins the tie on rank; 1 enters 1T after 0
		// leaves, on 0's deferred REPLY.
		{"ricart-agrawala", "ricart-agrawala", nil, []int{0, 1}, 0},
		// maekawa: 1 asks 1T after 0; its votes come 2T after 0 leaves.
		{"maekawa", "maekawa", nodes.Params{"stagger": "1T"}, []int{0, 1}, 0},
		// maekawa/inquire: everyone asks at once and everyone gets in,
		// in (timestamp, rank) order.
		{"maekawa-inquire", "maekawa/inquire", nil, []int{0, 1, 2, 3}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := nodetest.Build(t, tc.spec, tc.params, ascending(4)...)
			n.Start()
			for _, p := range tc.requesters {
				n.Initiate(p)
			}
			if tc.until > 0 {
				n.RunUntil(time.Duration(tc.until) * T)
			} else {
				n.Stabilize(100 * T)
			}
			n.Golden(tc.name)
		})
	}
}
