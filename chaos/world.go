package chaos

import (
	"math/rand/v2"

	"github.com/electbench/electbench/nodes"
)

// World is a running trial as a fault sees it at the instant it starts:
// selectors and partition shapes resolve against it. The simulator's
// trial.View implements it; so will the live harness.
type World interface {
	// N is the number of processes; positions are 0..N-1 in ring order.
	N() int
	// Rank is the rank of position p.
	Rank(p int) nodes.Rank
	// Alive reports whether p is up (not crashed, or restarted since).
	Alive(p int) bool
	// Leader is the position the latest decision named, or -1 if nobody
	// has decided yet.
	Leader() int
	// Initiators are the positions the workload told to initiate.
	Initiators() []int
	// Rand is the trial's fault stream: every random choice a fault makes
	// is drawn from it, so the seed decides.
	Rand() *rand.Rand
}
