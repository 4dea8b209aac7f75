package live

import (
	"net"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// fakeConn is a connection from a given host that notes its closing.
type fakeConn struct {
	net.Conn
	host   string
	closed bool
}

func (c *fakeConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.ParseIP(c.host), Port: 40000}
}

func (c *fakeConn) Close() error { c.closed = true; return nil }

// The handshake slots' fairness: a new connection evicts the oldest
// anonymous connection of the source holding the most; a claimed one is
// never evicted by an anonymous one, and a third claim of one id evicts
// the oldest claimant; with every slot claimed a new connection is shed.
func TestHandshakeSlotsAreFair(t *testing.T) {
	h := newHandshakes(4)
	a1, a2, a3 := &fakeConn{host: "192.0.2.1"}, &fakeConn{host: "192.0.2.1"}, &fakeConn{host: "192.0.2.1"}
	b1 := &fakeConn{host: "192.0.2.2"}
	for _, c := range []*fakeConn{b1, a1, a2, a3} {
		if ok, evicted := h.admit(c); !ok || evicted {
			t.Fatalf("admitting %s into a free slot: %v, %v", c.host, ok, evicted)
		}
	}
	peer := &fakeConn{host: "192.0.2.2"}
	if ok, evicted := h.admit(peer); !ok || !evicted {
		t.Fatalf("a new connection with every slot taken: %v, %v; want one evicted", ok, evicted)
	}
	if !a1.closed || b1.closed {
		t.Errorf("evicted: a1 %v, b1 %v; want the oldest of the source holding three (a1), not b1 (older, but its source holds one)", a1.closed, b1.closed)
	}
	id := nodes.ID{7}
	h.claim(peer, id)
	h.claim(a2, id)
	h.claim(a3, id) // a third claimant of id: the oldest other, a2, goes
	if !a2.closed || peer.closed {
		t.Errorf("claims of one id: a2 closed %v, peer closed %v; want a2 evicted", a2.closed, peer.closed)
	}
	h.done(a2)
	h.claim(b1, nodes.ID{8})
	c := &fakeConn{host: "192.0.2.3"}
	if ok, _ := h.admit(c); !ok { // a2's slot is free
		t.Fatal("a free slot refused")
	}
	h.claim(c, nodes.ID{9})
	if ok, _ := h.admit(&fakeConn{host: "192.0.2.4"}); ok {
		t.Error("admitted with every slot claimed")
	}
	if peer.closed || a3.closed || b1.closed || c.closed {
		t.Error("a claimed connection was evicted by an anonymous one")
	}
}
