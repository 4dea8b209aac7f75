package live

import (
	"net"
	"strconv"
	"sync"

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
	fails map[string]int // failed claims by source (sourceOf)
	max   int
	// verify is the costly check: Identity.Verify, or a test's stand-in.
	verify func(*pow.Identity) error
}

// Gate limits: the verifications run at once, the failures one source is
// allowed before the node refuses its claims without verifying, and the
// sources remembered (beyond them, new sources share one count).
const (
	GateConcurrency = 2
	GateFailures    = 8
	gateSources     = 4096
)

// NewGate returns a gate with the default limits.
func NewGate() *Gate {
	return &Gate{slots: make(chan struct{}, GateConcurrency), ok: map[pow.Identity]bool{}, fails: map[string]int{}, max: GateFailures,
		verify: (*pow.Identity).Verify}
}

// gateError refuses a source whose claims have failed verification too
// often.
type gateError struct{ fails int }

func (e gateError) Error() string {
	return "this source's identities have failed verification " + strconv.Itoa(e.fails) + " times: no more work is spent on its claims"
}

// sourceOf is the source a connection's failed claims are counted
// against: its remote host (a peer's port changes with every dial).
func sourceOf(addr net.Addr) string {
	if addr == nil {
		return ""
	}
	s := addr.String()
	if host, _, err := net.SplitHostPort(s); err == nil {
		return host
	}
	return s
}

// Verify runs id.Verify, for a claim that came from source, under the
// gate's bounds; a nil gate has none. Source "" is a peer this node
// dialled at the address its roster gave: its failures are that link's,
// counted against no source (every link of a harness's run comes from the
// same proxy host, which a few forged peers would otherwise lock out).
func (g *Gate) Verify(source string, id *pow.Identity) error {
	if g == nil {
		return id.Verify()
	}
	g.mu.Lock()
	switch {
	case g.ok[*id]:
		g.mu.Unlock()
		return nil
	case source != "" && g.fails[source] >= g.max:
		n := g.fails[source]
		g.mu.Unlock()
		return gateError{n}
	}
	g.mu.Unlock()
	g.slots <- struct{}{}
	g.mu.Lock()
	if n := g.fails[source]; source != "" && n >= g.max { // it failed while this one waited
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
	} else if source != "" {
		if _, seen := g.fails[source]; !seen && len(g.fails) >= gateSources {
			source = "*" // a flood of sources shares one count
		}
		g.fails[source]++
	}
	g.mu.Unlock()
	return err
}

// vouch records identities the harness checked itself (their puzzle,
// under the cluster's policy, and their key, by a signature over its
// challenge) as verified: the roster vouches for them, so a peer showing
// exactly one of them costs no hashing, and each proof of work of a
// cluster is verified once, by the harness, not once per link. Only the
// puzzle is taken on the roster's word: the handshake still has the peer
// sign this link's fresh challenge with the identity's key, and an
// identity that differs in any field (a forged one) is verified in full.
func (g *Gate) vouch(ids []*pow.Identity) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, id := range ids {
		g.ok[*id] = true
	}
}

// failures is how often claims from source failed verification.
func (g *Gate) failures(source string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fails[source]
}
