package live

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// testAEAD is a session cipher with a fixed key, for seeds and benchmarks.
func testAEAD(t testing.TB) cipher.AEAD {
	block, err := aes.NewCipher(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return aead
}

// sessionPair returns the two ends of one direction of a link, as a
// handshake over net.Pipe makes them.
func sessionPair(t *testing.T) (send, recv *Session) {
	d, a := mint(t), mint(t)
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	done := make(chan *Session, 1)
	go func() {
		_, _, s, err := handshaker(a, nil).Accept(c2, func(id nodes.ID) (int, bool) { return 1, id == d.ID })
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	_, send, err := handshaker(d, nil).Dial(c1, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return send, <-done
}

// frames decodes the frames in b.
func frames(t *testing.T, b []byte) []Frame {
	t.Helper()
	fr := NewFrameReader(bytes.NewReader(b))
	var out []Frame
	for {
		f, err := fr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Frame{Kind: f.Kind, Payload: bytes.Clone(f.Payload)})
	}
}

// Sealed frames open in order on the other end of their link, and nowhere
// else: a frame injected (unsealed, or sealed under another key), altered,
// replayed, reordered or reflected fails with ErrTag.
func TestSessionAuthenticatesFrames(t *testing.T) {
	send, recv := sessionPair(t)
	var b []byte
	for i := range 3 {
		var err error
		if b, _, err = send.AppendMessage(b, nodes.Message{Kind: testElection, A: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	fs := frames(t, b)
	if len(fs) != 3 || fs[0].Kind != FrameSealed {
		t.Fatalf("frames %+v", fs)
	}
	open := func(r *Session, f Frame) error {
		_, err := r.Open(f)
		return err
	}
	if m, err := recv.Open(fs[0]); err != nil || m.A != 1 {
		t.Fatalf("first frame: %+v, %v", m, err)
	}
	plain, _, _ := AppendMessage(nil, nodes.Message{Kind: testElection, A: 2})
	altered := Frame{Kind: FrameSealed, Payload: bytes.Clone(fs[1].Payload)}
	altered.Payload[len(altered.Payload)-TagLen-1] ^= 1
	other, _ := sessionPair(t)
	forged, _, _ := other.AppendMessage(nil, nodes.Message{Kind: testElection, A: 2})
	for name, f := range map[string]Frame{
		"unsealed MSG":       frames(t, plain)[0],
		"sealed elsewhere":   frames(t, forged)[0],
		"altered":            altered,
		"replayed":           fs[0],
		"reordered":          fs[2],
		"tag of another one": {Kind: FrameSealed, Payload: append(bytes.Clone(fs[1].Payload[:len(fs[1].Payload)-TagLen]), fs[2].Payload[len(fs[2].Payload)-TagLen:]...)},
	} {
		if err := open(recv, f); !errors.Is(err, ErrTag) {
			t.Errorf("%s: Open = %v, want ErrTag", name, err)
		}
	}
	// Rejections do not advance the sequence: the genuine frames still open.
	for i, f := range fs[1:] {
		if m, err := recv.Open(f); err != nil || m.A != int64(i+2) {
			t.Fatalf("frame %d after the rejections: %+v, %v", i+2, m, err)
		}
	}
	// Reflected: a frame sent back to its sender fails there.
	if err := open(send, fs[0]); !errors.Is(err, ErrTag) {
		t.Errorf("reflected: Open = %v, want ErrTag", err)
	}
}

// relay forwards a dialer's bytes to addr and lets the test inject its own
// between them, as a Toxiproxy or an attacker on the path could.
type relay struct {
	ln     net.Listener
	inject chan []byte
}

func newRelay(t *testing.T, addr string) *relay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, inject: make(chan []byte)}
	go func() {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", addr)
		if err != nil {
			in.Close()
			return
		}
		go func() {
			io.Copy(in, out)
			in.Close() // the node closed the link: so does the relay
		}()
		go func() {
			for b := range r.inject {
				out.Write(b)
			}
		}()
		io.Copy(out, in)
		out.Close()
	}()
	t.Cleanup(func() { ln.Close() })
	return r
}

// The relayed-then-injected frame: a relay between two nodes passes
// the handshake and a genuine message, then injects a frame of its own (a
// replay of the message it saw). The node rejects it, counts it and closes
// the link; the genuine message was delivered once.
func TestNodeRejectsAnInjectedFrame(t *testing.T) {
	n, keys, addr := cluster3(t, Options{})
	r := newRelay(t, addr)
	c, err := net.Dial("tcp", r.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	peer := &Handshaker{Key: keys[1], Policy: pow.PolicyFor(IdentityParams(testBits)), Timeout: 10 * time.Second}
	_, sess, err := peer.Dial(c, keys[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	n.cmd(Command{Type: "start", T0: Mono()})
	n.next("step")
	msg, _, err := sess.AppendMessage(nil, nodes.Message{Kind: testElection, Rank: keys[1].Rank()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	if r := n.next("step"); r.Ev != "recv" || r.From != 1 {
		t.Fatalf("the genuine message: %+v", r)
	}
	r.inject <- msg
	if p := n.next("protocol"); p.Peer != 1 {
		t.Errorf("protocol report %+v", p)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the link stayed open after the injected frame")
	}
	st := n.stop()
	if st.Rejected != 1 || st.Recv["LIVE_TEST_ELECTION"] != 1 {
		t.Errorf("stats %+v: want one rejected frame and one message delivered", st)
	}
}

// BenchmarkSession is what authentication adds to one hop: sealing a
// message on the sender, opening it on the receiver (compare BenchmarkHop's
// runtime-µs/hop, and issue 5's bound of 10 µs over the Toxiproxy hop).
func BenchmarkSession(b *testing.B) {
	send, recv := &Session{aead: testAEAD(b)}, &Session{aead: testAEAD(b)}
	m := nodes.Message{Kind: testElection, Rank: nodes.RankOf(1 << 40), A: 7}
	var buf []byte
	var err error
	for b.Loop() {
		if buf, _, err = send.AppendMessage(buf[:0], m); err != nil {
			b.Fatal(err)
		}
		f := Frame{Kind: FrameSealed, Payload: buf[headerLen+2:]}
		if _, err := recv.Open(f); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/hop")
}

// FuzzSessionOpen: opening never panics, and no payload but the one the
// sender sealed opens — a forger without the key gets nothing through.
func FuzzSessionOpen(f *testing.F) {
	send := &Session{aead: testAEAD(f)}
	genuine, _, _ := send.AppendMessage(nil, nodes.Message{Kind: testElection, A: 5})
	f.Add(genuine[headerLen+2:])
	f.Add(make([]byte, TagLen))
	f.Add([]byte{})
	epoch := (&Session{aead: testAEAD(f)}).AppendEpoch(nil, 3)
	f.Add(epoch[headerLen+2:])
	f.Fuzz(func(t *testing.T, payload []byte) {
		recv := &Session{aead: testAEAD(t)}
		m, err := recv.Open(Frame{Kind: FrameSealed, Payload: payload})
		if err == nil && !bytes.Equal(payload, genuine[headerLen+2:]) {
			t.Fatalf("a payload the sender never sealed opened: %x → %+v", payload, m)
		}
		recv = &Session{aead: testAEAD(t)}
		e, err := recv.OpenEpoch(Frame{Kind: FrameEpoch, Payload: payload})
		if err == nil && (!bytes.Equal(payload, epoch[headerLen+2:]) || e != 3) {
			t.Fatalf("an EPOCH payload the sender never sealed opened: %x → %d", payload, e)
		}
	})
}

// An EPOCH frame is sealed in the link's sequence like a message: it opens
// in order with its epoch, and an altered or unsealed one fails with
// ErrTag, so a peer's messages cannot be moved to another trial by anyone
// on the path.
func TestSessionEpochFrames(t *testing.T) {
	send, recv := sessionPair(t)
	b, _, err := send.AppendMessage(nil, nodes.Message{Kind: testElection, A: 1})
	if err != nil {
		t.Fatal(err)
	}
	b = send.AppendEpoch(b, 7)
	if b, _, err = send.AppendMessage(b, nodes.Message{Kind: testElection, A: 2}); err != nil {
		t.Fatal(err)
	}
	fs := frames(t, b)
	if len(fs) != 3 || fs[1].Kind != FrameEpoch || len(fs[1].Payload) != EpochLen+TagLen {
		t.Fatalf("frames %+v", fs)
	}
	if _, err := recv.Open(fs[0]); err != nil {
		t.Fatal(err)
	}
	altered := Frame{Kind: FrameEpoch, Payload: bytes.Clone(fs[1].Payload)}
	altered.Payload[EpochLen-1] ^= 1
	plain, err := AppendFrame(nil, FrameEpoch, make([]byte, EpochLen+TagLen))
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]Frame{"altered": altered, "unsealed": frames(t, plain)[0], "a message in its place": fs[2]} {
		if _, err := recv.OpenEpoch(f); !errors.Is(err, ErrTag) {
			t.Errorf("%s: OpenEpoch = %v, want ErrTag", name, err)
		}
	}
	if e, err := recv.OpenEpoch(fs[1]); err != nil || e != 7 {
		t.Fatalf("epoch frame: %d, %v", e, err)
	}
	if m, err := recv.Open(fs[2]); err != nil || m.A != 2 {
		t.Fatalf("the message after the epoch: %+v, %v", m, err)
	}
}

// linkSessions shakes hands over net.Pipe, dialer d to acceptor a, and
// returns the dialer's sending session and the acceptor's receiving one.
func linkSessions(t *testing.T, d, a *Handshaker, want nodes.ID) (send, recv *Session) {
	t.Helper()
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	done := make(chan *Session, 1)
	go func() {
		_, _, s, err := a.Accept(c2, func(nodes.ID) (int, bool) { return 1, true })
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	_, send, err := d.Dial(c1, want)
	if err != nil {
		t.Fatal(err)
	}
	return send, <-done
}

// A node shows one ephemeral key in all its handshakes and computes the
// secret with a peer's once (Handshaker.eph), yet each link has keys of
// its own: a frame sealed on one of a pair's links, either way, does not
// open on another of theirs.
func TestSessionKeysAreEachLinksOwn(t *testing.T) {
	x, y := mint(t), mint(t)
	hx, hy := handshaker(x, nil), handshaker(y, nil)
	type link struct{ send, recv *Session }
	var links []link
	for range 2 {
		s, r := linkSessions(t, hx, hy, y.ID)
		links = append(links, link{s, r})
		s, r = linkSessions(t, hy, hx, x.ID)
		links = append(links, link{s, r})
	}
	if len(hx.eph.secrets) != 1 || len(hy.eph.secrets) != 1 {
		t.Fatalf("secrets kept after four links of one pair: %d and %d, want 1 each", len(hx.eph.secrets), len(hy.eph.secrets))
	}
	m := nodes.Message{Kind: testElection, A: 7}
	for i, from := range links {
		for j, to := range links {
			b, _, err := from.send.AppendMessage(nil, m)
			if err != nil {
				t.Fatal(err)
			}
			from.send.seq-- // seal the same frame again for the next receiver
			got, err := to.recv.Open(frames(t, b)[0])
			if i == j {
				if err != nil || got != m {
					t.Errorf("link %d's own frame: %v, %v", i, got, err)
				}
				to.recv.seq--
				continue
			}
			if !errors.Is(err, ErrTag) {
				t.Errorf("a frame sealed on link %d opened on link %d: %v, %v", i, j, got, err)
			}
		}
	}
}
