package live

import (
	"strconv"
	"sync"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// Gate bounds what verifying peers' identities can cost one node. Only an
// identity of the cluster's puzzle claiming an id on the roster reaches it
// (the handshake checks both first, for free), so one verification costs
// at most what the cluster's own identities cost; the gate then bounds how
// many run at once and how many a claimed id may fail, and remembers the
// identities that passed so that an honest peer's reconnections cost
// nothing.
type Gate struct {
	slots chan struct{}
	mu    sync.Mutex
	ok    map[pow.Identity]bool
	fails map[nodes.ID]int
	max   int
	// verify is the costly check: Identity.Verify, or a test's stand-in.
	verify func(*pow.Identity) error
}

// Gate limits: the verifications run at once, and the failures one claimed
// id is allowed before the node refuses it without verifying.
const (
	GateConcurrency = 2
	GateFailures    = 8
)

// NewGate returns a gate with the default limits.
func NewGate() *Gate {
	return &Gate{slots: make(chan struct{}, GateConcurrency), ok: map[pow.Identity]bool{}, fails: map[nodes.ID]int{}, max: GateFailures,
		verify: (*pow.Identity).Verify}
}

// gateError refuses an id that has failed verification too often.
type gateError struct{ fails int }

func (e gateError) Error() string {
	return "its identity has failed verification " + strconv.Itoa(e.fails) + " times: no more work is spent on it"
}

// Verify runs id.Verify under the gate's bounds; a nil gate has none.
func (g *Gate) Verify(id *pow.Identity) error {
	if g == nil {
		return id.Verify()
	}
	g.mu.Lock()
	switch {
	case g.ok[*id]:
		g.mu.Unlock()
		return nil
	case g.fails[id.ID] >= g.max:
		n := g.fails[id.ID]
		g.mu.Unlock()
		return gateError{n}
	}
	g.mu.Unlock()
	g.slots <- struct{}{}
	g.mu.Lock()
	if n := g.fails[id.ID]; n >= g.max { // it failed while this one waited
		g.mu.Unlock()
		<-g.slots
		return gateError{n}
	}
	g.mu.Unlock()
	err := g.verify(id)
	<-g.slots
	g.mu.Lock()
	if err == nil {
		g.ok[*id] = true
	} else {
		g.fails[id.ID]++
	}
	g.mu.Unlock()
	return err
}

// failures is how often claims of id failed verification.
func (g *Gate) failures(id nodes.ID) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fails[id]
}
