package live

import (
	"fmt"
	"slices"
	"sync"

	"github.com/electbench/electbench/nodes"
)

// memHub is an in-memory network of memTransports, known by address: the
// twin of the sockets, handshakes and proxies behind netTransport, so that
// a node's logic (its shell, env, timers, detector and counters) runs in
// tests with its goroutines blocked on channels only (synctest's clock
// runs).
type memHub struct {
	mu  sync.Mutex
	at  map[string]*memTransport
	cut map[[2]string]bool // links out, from address to address, that drop all
}

func newMemHub() *memHub {
	return &memHub{at: map[string]*memTransport{}, cut: map[[2]string]bool{}}
}

// partition cuts every link between a node of side and one outside it,
// both ways: a partition is one call.
func (h *memHub) partition(side ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for other := range h.at {
		if !slices.Contains(side, other) {
			for _, in := range side {
				h.cut[[2]string{in, other}], h.cut[[2]string{other, in}] = true, true
			}
		}
	}
}

func (h *memHub) isCut(from, to string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cut[[2]string{from, to}]
}

// transport is the transport of the node at addr, which posts to post.
func (h *memHub) transport(addr string, post func(event) bool) *memTransport {
	t := &memTransport{hub: h, name: addr, post: post, r: &roster{}, inbox: make(chan event, 1<<14), quit: make(chan struct{})}
	h.mu.Lock()
	h.at[addr] = t
	h.mu.Unlock()
	t.wg.Add(1)
	go t.pump()
	return t
}

func (h *memHub) lookup(addr string) *memTransport {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.at[addr]
}

// memTransport is a transport in memory. A link out is the peer's inbox,
// which is FIFO, as a TCP link is; a message sent in one trial and
// delivered in the next carries its epoch and is stale, as on the wire.
// Every link is up as soon as it is configured, and none is ever refused;
// a cut link (memHub.partition) drops what is sent on it.
// r and links are the node's goroutine's; inbox and quit are shared with
// the senders, and frames counts from the pump too.
type memTransport struct {
	hub    *memHub
	name   string
	post   func(event) bool
	r      *roster
	links  []*memTransport // by position
	inbox  chan event
	quit   chan struct{} // closed by close: sends to it are dropped
	wg     sync.WaitGroup
	frames frameCounts // one SEALED frame a message
}

var _ transport = (*memTransport)(nil)

// pump hands what arrives to the node's goroutine, in order.
func (t *memTransport) pump() {
	defer t.wg.Done()
	for {
		select {
		case e := <-t.inbox:
			t.frames.add(false, FrameSealed)
			if !t.post(e) {
				return
			}
		case <-t.quit:
			return
		}
	}
}

func (t *memTransport) addr() string { return t.name }

func (t *memTransport) configure(r *roster, links []Link) error {
	t.r = r
	t.links = make([]*memTransport, len(r.ranks))
	for _, l := range links {
		if l.To < 0 || l.To >= len(r.ranks) || l.To == r.self || t.links[l.To] != nil {
			return fmt.Errorf("live: bad link to position %d", l.To)
		}
		if t.links[l.To] = t.hub.lookup(l.Addr); t.links[l.To] == nil {
			return fmt.Errorf("live: no node at %s", l.Addr)
		}
	}
	return nil
}

func (t *memTransport) epoch() uint64            { return t.r.epoch }
func (t *memTransport) position(id nodes.ID) int { return t.r.position(id) }
func (t *memTransport) start()                   {}
func (t *memTransport) redial()                  {}

func (t *memTransport) settled() (all bool, up, refused int) {
	for _, l := range t.links {
		if l != nil {
			up++
		}
	}
	return true, up, 0
}

func (t *memTransport) send(to int, m nodes.Message, body []byte) (dropped bool, err error) {
	p := t.links[to]
	if p == nil || t.hub.isCut(t.name, p.name) {
		return true, nil
	}
	size := m.EncodedSize()
	if body != nil {
		size = len(body)
	}
	e := event{kind: evMsg, peer: t.r.ranks[t.r.self].ID, epoch: t.r.epoch, msg: m, body: body, size: size}
	select {
	case p.inbox <- e:
		t.frames.add(true, FrameSealed)
		return false, nil
	case <-p.quit:
		return true, nil
	}
}

func (t *memTransport) counts() linkCounts {
	var c linkCounts
	t.frames.load(&c)
	return c
}

func (t *memTransport) reset() {
	r := *t.r
	r.epoch = noEpoch
	t.r = &r
	t.frames.reset()
}

func (t *memTransport) close() {
	close(t.quit)
	t.wg.Wait()
	t.hub.mu.Lock()
	delete(t.hub.at, t.name)
	t.hub.mu.Unlock()
}
