package live

import (
	"net"
	"sync"

	"github.com/electbench/electbench/nodes"
)

// handshakes are the accepted connections still in their handshake, at
// most max of them: what a flood of connections that never finish (a
// slowloris) may hold. The slots are shared fairly rather than first
// come, first served, so that such a flood cannot starve a peer on the
// roster (the 1 handshake in 247 over 25 s):
//
//   - a connection that has not yet shown a HELLO claiming an id on the
//     roster is anonymous, and is evicted (closed) to make room for a
//     new one when every slot is taken: the oldest of the source that
//     holds the most anonymous slots goes first, so the biggest holder
//     pays;
//   - a connection whose HELLO claimed a roster id holds a slot reserved
//     for that id: no anonymous connection evicts it, and at most
//     perClaim claim one id at once (a new claim evicts the oldest), so
//     replaying a peer's public identity file holds at most that many;
//   - its HELLO must come within the handshaker's HelloTimeout, short,
//     which honest dialers (who send it first thing) never notice.
type handshakes struct {
	mu    sync.Mutex
	max   int
	seq   uint64
	conns map[net.Conn]*pendingConn
}

// perClaim bounds the handshakes claiming one roster id at once.
const perClaim = 2

type pendingConn struct {
	src     string // sourceOf its remote address
	seq     uint64 // arrival order: lower is older
	claimed bool
	id      nodes.ID // the id it claimed, once claimed
}

func newHandshakes(max int) *handshakes {
	return &handshakes{max: max, conns: map[net.Conn]*pendingConn{}}
}

// admit takes c into a slot, evicting an anonymous connection when every
// slot is taken (evicted says so); ok is false when every slot is
// reserved for claims (c is to be closed unread).
func (h *handshakes) admit(c net.Conn) (ok, evicted bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.conns) >= h.max {
		victim := h.anonymousVictim()
		if victim == nil {
			return false, false
		}
		delete(h.conns, victim)
		victim.Close() // its handshake fails and its goroutine ends
		evicted = true
	}
	h.seq++
	h.conns[c] = &pendingConn{src: sourceOf(c.RemoteAddr()), seq: h.seq}
	return true, evicted
}

// anonymousVictim is the oldest anonymous connection of the source with
// the most anonymous connections; nil when there is none.
func (h *handshakes) anonymousVictim() net.Conn {
	held := map[string]int{}
	for _, p := range h.conns {
		if !p.claimed {
			held[p.src]++
		}
	}
	var victim net.Conn
	var vp *pendingConn
	for c, p := range h.conns {
		if p.claimed {
			continue
		}
		if vp == nil || held[p.src] > held[vp.src] || held[p.src] == held[vp.src] && p.seq < vp.seq {
			victim, vp = c, p
		}
	}
	return victim
}

// claim moves c to a slot reserved for the roster id its HELLO claimed,
// evicting the oldest other claimant of that id beyond perClaim.
func (h *handshakes) claim(c net.Conn, id nodes.ID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.conns[c]
	if p == nil { // evicted meanwhile: its handshake is failing
		return
	}
	p.claimed, p.id = true, id
	var oldest net.Conn
	n := 0
	for o, q := range h.conns {
		if q.claimed && q.id == id {
			n++
			if o != c && (oldest == nil || q.seq < h.conns[oldest].seq) {
				oldest = o
			}
		}
	}
	if n > perClaim && oldest != nil {
		delete(h.conns, oldest)
		oldest.Close()
	}
}

// done frees c's slot, if it still holds one.
func (h *handshakes) done(c net.Conn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
}
