package live

import (
	"io"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes"
)

// host is the nodes.Host a live-only algorithm's library sees (nodes.Library,
// nodes.Hosted). The library calls it from its own goroutines; what it sends
// and decides goes into an outbox, and the node's goroutine takes the outbox
// as one step of its own ("library" on the step line), through the env as a
// machine's sends and decisions go: counted by kind and size, lost or
// written to the link, and listed on the step line for the harness. Sends
// never block, so a library blocked in a send can never hold up the node's
// goroutine, which stops the library at a reset.
type host struct {
	ranks []nodes.Rank
	self  int
	peers []nodes.Peer
	start time.Time // the env's t0, set as the run starts
	store *stable
	log   io.Writer
	kick  chan struct{} // one pending wake-up of the node's goroutine

	spare []hostAct // the node's goroutine's, for take

	mu     sync.Mutex
	outbox []hostAct
	closed bool // the library was stopped: nothing more goes out
}

// hostAct is one thing a library did: a send to position to, or, with
// decide set, a decision.
type hostAct struct {
	to     int
	msg    nodes.Message
	decide bool
	leader nodes.Rank
}

func newHost(v *env, store *stable, log io.Writer) *host {
	if log == nil {
		log = io.Discard
	}
	return &host{ranks: v.ranks, self: v.self, peers: v.peers, store: store, log: log, kick: make(chan struct{}, 1)}
}

func (h *host) Self() nodes.Rank          { return h.ranks[h.self] }
func (h *host) Peers() []nodes.Peer       { return h.peers }
func (h *host) Now() time.Duration        { return time.Since(h.start) }
func (h *host) Stable() nodes.StableStore { return hostStable{h.store} }
func (h *host) Log() io.Writer            { return h.log }

func (h *host) Send(to nodes.PeerID, m nodes.Message) { h.put(hostAct{to: int(to), msg: m}) }
func (h *host) Decide(l nodes.Rank)                   { h.put(hostAct{decide: true, leader: l}) }

func (h *host) put(a hostAct) {
	h.mu.Lock()
	if !h.closed {
		h.outbox = append(h.outbox, a)
	}
	h.mu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default: // a wake-up is pending: it takes this too
	}
}

// take empties the outbox into buf (reused) and returns it.
func (h *host) take(buf []hostAct) []hostAct {
	h.mu.Lock()
	defer h.mu.Unlock()
	buf = append(buf[:0], h.outbox...)
	clear(h.outbox)
	h.outbox = h.outbox[:0]
	return buf
}

// close drops whatever the library still sends: it has been stopped, or
// is being.
func (h *host) close() {
	h.mu.Lock()
	h.closed, h.outbox = true, nil
	h.mu.Unlock()
}

// hostStable is the node's stable storage as a library sees it
// (nodes.StableStore over stable, which locks).
type hostStable struct{ s *stable }

func (s hostStable) LoadStable() []byte    { return s.s.load() }
func (s hostStable) SaveStable(b []byte)   { s.s.save(b) }
func (s hostStable) AppendStable(b []byte) { s.s.append(b) }

// Host is nodes.Hosting: the env hosts a library.
func (v *env) Host() nodes.Host { return v.host }

// libraryKick is the wake-up of the trial's library, if it hosts one.
func (n *node) libraryKick() <-chan struct{} {
	if n.env == nil || n.env.host == nil {
		return nil
	}
	return n.env.host.kick
}

// libraryStep sends and decides what the library put in the outbox since
// the last, as one step.
func (n *node) libraryStep() {
	h := n.env.host
	acts := h.take(h.spare)
	h.spare = acts
	if len(acts) == 0 || !n.started {
		return
	}
	n.stepBegin("library", 0)
	for i := range acts {
		a := &acts[i]
		if a.decide {
			n.env.Decide(a.leader)
			continue
		}
		if a.to < 0 || a.to >= len(n.env.ranks) {
			n.logf("the library sent %s to position %d, which does not exist", a.msg.Kind, a.to)
			continue
		}
		n.env.Send(nodes.PeerID(a.to), a.msg)
	}
	clear(acts)
	n.stepEnd()
}

var _ nodes.Hosting = (*env)(nil)
