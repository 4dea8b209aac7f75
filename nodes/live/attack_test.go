package live

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// Attacks on one node by a party on its network, each reproduced from
// issue 22 and pinned: the node stays bounded and blames nobody it cannot
// prove guilty.

// cluster3 runs node 0 of a three-node run on loopback TCP, configured with
// no outgoing links, and returns it with the other two positions' keys.
func cluster3(t *testing.T, o Options) (*testNode, []*pow.Key, string) {
	t.Helper()
	o.Identity = mint(t)
	n := runNode(t, o)
	hello := n.next("hello")
	keys := []*pow.Key{o.Identity, mint(t), mint(t)}
	n.cmd(Command{Type: "configure", Config: configFor("live-test-echo", 0, keys)})
	if r := n.next("linked"); r.Up != 0 {
		t.Fatalf("linked %+v", r)
	}
	t.Cleanup(func() {
		n.in.Close() // a node not stopped ends at the end of its commands
		for range n.reports {
		}
	})
	return n, keys, hello.Addr
}

// sendHello connects to addr and sends a HELLO showing id; it returns the
// connection and what came back first (nil if the node closed without a
// frame).
func sendHello(t *testing.T, addr string, id *pow.Identity) (*Frame, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return helloOn(t, c, id)
}

// helloOn is sendHello on a connection made already.
func helloOn(t *testing.T, c net.Conn, id *pow.Identity) (*Frame, error) {
	t.Helper()
	file, err := pow.Encode(id)
	if err != nil {
		t.Fatal(err)
	}
	// A challenge, an ephemeral key and its certificate (random bytes
	// will do: the node refuses before it uses them), then the identity.
	challenge := make([]byte, ChallengeLen+EphemeralLen+SignatureLen)
	rand.Read(challenge)
	b, err := AppendFrame(nil, FrameHello, append(challenge, file...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	f, err := NewFrameReader(c).Next()
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// claim is an identity claiming id with a random key and the given puzzle:
// what anyone can write without knowing id's key.
func claim(id nodes.ID, p pow.Params) *pow.Identity {
	show := &pow.Identity{Params: p, ID: id}
	rand.Read(show.PublicKey[:])
	return show
}

// The Argon2id HELLO: an identity whose verification would fill
// 512 MiB·pass (two evaluations of 256 MiB), which pow.DefaultPolicy
// accepts. A node of a SHA-256 cluster refuses it before any hashing, even
// when it claims a peer's id: the node allocates less than 16 MiB while
// refusing it, and the refusal is anonymous.
func TestNodeRefusesArgon2HelloBeforeHashing(t *testing.T) {
	n, keys, addr := cluster3(t, Options{})
	heavy := pow.Params{Hash: pow.Argon2id, Iterations: 1, Bits: testBits,
		Argon2: pow.Argon2Params{Time: 1, MemoryKiB: 256 << 10, Threads: 1}}
	show := claim(keys[1].ID, heavy)
	if err := pow.DefaultPolicy().Admit(show); err != nil {
		t.Fatalf("the attack's premise: the default policy refuses it (%v)", err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := sendHello(t, addr, show)
	if err != nil || f.Kind != FrameRefuse {
		t.Fatalf("answer to the Argon2id HELLO: %+v, %v; want REFUSE", f, err)
	}
	r := n.next("refused")
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("refusing the Argon2id HELLO allocated %d MiB; the bound is 16 MiB", grew>>20)
	}
	if r.Peer != -1 || r.Side != "accept" {
		t.Errorf("refusal %+v: want an anonymous one (peer -1)", r)
	}
	if st := n.stop(); st.Anonymous != 1 || st.Refused != 1 {
		t.Errorf("stats %+v: want one anonymous refusal", st)
	}
}

// The false blame: a connection claiming position 2's id with a
// random key (and the cluster's puzzle, so it gets as far as verification)
// is refused anonymously; position 2 is not named.
func TestNodeBlamesNobodyForAnUnprovenClaim(t *testing.T) {
	n, keys, addr := cluster3(t, Options{})
	f, err := sendHello(t, addr, claim(keys[2].ID, IdentityParams(testBits)))
	if err != nil || f.Kind != FrameRefuse {
		t.Fatalf("answer to the claim: %+v, %v; want REFUSE", f, err)
	}
	if r := n.next("refused"); r.Peer != -1 {
		t.Errorf("refusal %+v names position %d; the connection proved no key", r, r.Peer)
	}
	// An id outside the roster is refused the same way.
	f, err = sendHello(t, addr, claim(nodes.ID{1, 2, 3, 4}, IdentityParams(testBits)))
	if err != nil || f.Kind != FrameRefuse {
		t.Fatalf("answer to a stranger: %+v, %v; want REFUSE", f, err)
	}
	if r := n.next("refused"); r.Peer != -1 {
		t.Errorf("refusal %+v of a stranger names a position", r)
	}
	if st := n.stop(); st.Anonymous != 2 {
		t.Errorf("stats %+v: want two anonymous refusals", st)
	}
}

// A connection showing position 1's real identity, with its ephemeral key
// certified by another key, or with a valid certificate replayed but no
// ephemeral private key to prove it by, is refused anonymously: the
// certificate is public, so neither proves who is there.
func TestNodeBlamesNobodyForACertificateOrAReplayedHello(t *testing.T) {
	n, keys, addr := cluster3(t, Options{})
	forged := &Handshaker{Key: keys[2], Show: &keys[1].Identity}
	honest := &Handshaker{Key: keys[1]}
	for _, tc := range []struct {
		name  string
		h     *Handshaker
		proof bool // the node answers and gets a PROOF made up
	}{{"another key's certificate", forged, false}, {"a valid certificate, no ephemeral key", honest, true}} {
		hello, _, _, err := tc.h.hello()
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		c.Write(hello)
		fr := NewFrameReader(c)
		f, err := fr.Next()
		if tc.proof {
			if err != nil || f.Kind != FrameHello {
				t.Fatalf("%s: answer %v, %v; want HELLO", tc.name, f.Kind, err)
			}
			if f, err = fr.Next(); err != nil || f.Kind != FrameProof {
				t.Fatalf("%s: answer %v, %v; want PROOF", tc.name, f.Kind, err)
			}
			madeUp := make([]byte, ProofLen)
			rand.Read(madeUp)
			p, _ := AppendFrame(nil, FrameProof, madeUp)
			c.Write(p)
			f, err = fr.Next()
		}
		c.Close()
		if err != nil || f.Kind != FrameRefuse {
			t.Fatalf("%s: answer %v, %v; want REFUSE", tc.name, f.Kind, err)
		}
		if r := n.next("refused"); r.Peer != -1 {
			t.Errorf("%s: refusal %+v names position %d; the connection proved no key", tc.name, r, r.Peer)
		}
	}
	if st := n.stop(); st.Anonymous != 2 || st.Refused != 2 {
		t.Errorf("stats %+v: want two anonymous refusals", st)
	}
}

// A source whose claims keep failing verification stops costing work:
// after GateFailures failures its claims are refused unverified, and at
// most GateConcurrency verifications ever run at once.
func TestGateBoundsVerification(t *testing.T) {
	g := NewGate()
	var running, most atomic.Int32
	release := make(chan struct{})
	g.verify = func(id *pow.Identity) error {
		r := running.Add(1)
		for {
			m := most.Load()
			if r <= m || most.CompareAndSwap(m, r) {
				break
			}
		}
		<-release
		running.Add(-1)
		return pow.ErrKeyMismatch
	}
	id := claim(nodes.ID{9}, IdentityParams(testBits))
	var wg sync.WaitGroup
	for range 3 * GateFailures {
		wg.Go(func() { g.Verify("192.0.2.1", id) })
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case release <- struct{}{}:
			case <-stop:
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	if m := most.Load(); m > GateConcurrency {
		t.Errorf("%d verifications ran at once; the bound is %d", m, GateConcurrency)
	}
	err := g.Verify("192.0.2.1", id)
	var ge gateError
	if !errors.As(err, &ge) {
		t.Fatalf("after %d failures: %v; want a refusal without verifying", g.failures("192.0.2.1"), err)
	}
	if f := g.failures("192.0.2.1"); f > GateFailures+GateConcurrency-1 {
		t.Errorf("%d verifications for one source; the bound is %d (+%d in flight)", f, GateFailures, GateConcurrency-1)
	}
}

// The lockout (item 13): a source that fails more than
// GateFailures claims of position 1's id is locked out, but position 1's
// genuine holder, dialling from another host, still gets in: the lockout
// is the source's, not the id's.
func TestFailedClaimsLockOutTheSourceNotTheID(t *testing.T) {
	n, keys, addr := cluster3(t, Options{})
	attacker := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	for range 2 * GateFailures {
		c, err := attacker.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dialling from 127.0.0.2: %v", err)
		}
		f, err := helloOn(t, c, claim(keys[1].ID, IdentityParams(testBits)))
		c.Close()
		if err != nil || f.Kind != FrameRefuse {
			t.Fatalf("answer to a false claim: %+v, %v; want REFUSE", f, err)
		}
		n.next("refused")
	}
	peer := &Handshaker{Key: keys[1], Policy: pow.PolicyFor(IdentityParams(testBits)), Timeout: 10 * time.Second}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := peer.Dial(c, keys[0].ID); err != nil {
		t.Fatalf("the genuine holder after %d false claims of its id from another host: %v", 2*GateFailures, err)
	}
	n.stop()
}

// flakyListener fails Accept with EMFILE, as a listener does once a flood of
// idle connections has used up the process's file descriptors.
type flakyListener struct {
	net.Listener
	fails atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, fmt.Errorf("accept tcp: %w", syscall.EMFILE)
	}
	return l.Listener.Accept()
}

// The EMFILE flood: Accept failing does not end the accept loop;
// the node logs it and accepts again once descriptors are free.
func TestNodeAcceptsAgainAfterEMFILE(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: ln}
	fl.fails.Store(5)
	log := &syncBuffer{}
	n, keys, addr := cluster3(t, Options{Listener: fl, Log: log})
	peer := &Handshaker{Key: keys[1], Policy: pow.PolicyFor(IdentityParams(testBits)), Timeout: 10 * time.Second}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := peer.Dial(c, keys[0].ID); err != nil {
		t.Fatalf("a peer's handshake after 5 failed Accepts: %v", err)
	}
	if fl.fails.Load() >= 0 {
		t.Fatal("the listener never failed")
	}
	n.stop()
	if !log.contains("too many open files") {
		t.Errorf("the failed Accepts were not logged: %q", log.String())
	}
}

// The pre-start flood: an authenticated peer sending more than
// MaxEarly messages before start has its link closed as a protocol error,
// reported, and the node holds at most MaxEarly of its messages.
func TestNodeCutsAPreStartFlood(t *testing.T) {
	const maxEarly = 64
	n, keys, addr := cluster3(t, Options{MaxEarly: maxEarly})
	peer := &Handshaker{Key: keys[1], Policy: pow.PolicyFor(IdentityParams(testBits)), Timeout: 10 * time.Second}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, sess, err := peer.Dial(c, keys[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wrote := 0
	for ctx.Err() == nil {
		msg, _, err := sess.AppendMessage(nil, nodes.Message{Kind: testElection, Rank: keys[1].Rank()})
		if err != nil {
			t.Fatal(err)
		}
		c.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := c.Write(msg); err != nil {
			break // the node closed the link
		}
		wrote++
	}
	r := n.next("protocol")
	if r.Peer != 1 {
		t.Errorf("protocol report %+v: want peer 1", r)
	}
	if wrote <= maxEarly {
		t.Errorf("the link was closed after %d messages, within the %d allowed", wrote, maxEarly)
	}
	st := n.stop()
	if st.ProtocolErrors != 1 {
		t.Errorf("stats %+v: want one protocol error", st)
	}
}

// The reset bound (item 2): the pre-start bound is the peer's, not
// a connection's or an epoch's. An authenticated peer that sends most of
// MaxEarly, then a sealed EPOCH frame of the trial and more, is cut as
// it passes the bound; reconnecting, its next pre-start message is cut
// at once. Today's code counted per connection and reset at each EPOCH.
func TestNodeBoundsPreStartPerPeer(t *testing.T) {
	const maxEarly = 64
	n, keys, addr := cluster3(t, Options{MaxEarly: maxEarly})
	peer := &Handshaker{Key: keys[1], Policy: pow.PolicyFor(IdentityParams(testBits)), Timeout: 10 * time.Second}
	link := func() (net.Conn, *Session) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_, sess, err := peer.Dial(c, keys[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		return c, sess
	}
	// send writes k messages after an EPOCH frame of the trial (its
	// epoch, 0, is every connection's first: the frame changes nothing
	// but the count today's code kept).
	send := func(c net.Conn, sess *Session, k int) {
		b := sess.AppendEpoch(nil, 0)
		for range k {
			var err error
			if b, _, err = sess.AppendMessage(b, nodes.Message{Kind: testElection, Rank: keys[1].Rank()}); err != nil {
				t.Fatal(err)
			}
		}
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		c.Write(b) // the node may close the link midway: that is the point
	}
	protocol := func(what string) {
		t.Helper()
		select {
		case r := <-n.reports:
			if r.Type != "protocol" || r.Peer != 1 {
				t.Fatalf("%s: report %+v; want a protocol error of peer 1", what, r)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: peer 1 went past its pre-start bound of %d unchecked", what, maxEarly)
		}
	}
	c, sess := link()
	send(c, sess, maxEarly-8)
	send(c, sess, 16) // past the bound, after an EPOCH frame
	protocol("an EPOCH frame midway")
	c, sess = link()
	send(c, sess, 1)
	protocol("reconnecting")
	if st := n.stop(); st.ProtocolErrors != 2 {
		t.Errorf("stats %+v: want two protocol errors", st)
	}
}

// The redirected proxy (#39 item 1): a link to position 1 that
// leads to position 2's listener (Toxiproxy's API is unauthenticated, and
// anyone can repoint a proxy) is refused as the path's fault, naming the
// peer it was meant for with path set: position 1 showed nothing, so the
// harness records "0>path(0>1)" and blames nobody.
func TestNodeBlamesThePathForAnotherIdentity(t *testing.T) {
	keys := []*pow.Key{mint(t), mint(t), mint(t)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		// Position 2, honest, accepting whoever the proxy sends.
		other := &Handshaker{Key: keys[2], Policy: pow.PolicyFor(IdentityParams(testBits)), Timeout: 10 * time.Second}
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			other.Accept(c, func(id nodes.ID) (int, bool) { return 0, id == keys[0].ID })
			c.Close()
		}
	}()
	n := runNode(t, Options{Identity: keys[0]})
	n.next("hello")
	cfg := configFor("live-test-echo", 0, keys)
	cfg.Links = []Link{{To: 1, Addr: ln.Addr().String()}}
	n.cmd(Command{Type: "configure", Config: cfg})
	r := <-n.reports
	for r.Type == "link" || r.Type == "linked" { // before or after it, as the node's goroutines go
		r = <-n.reports
	}
	if r.Type != "refused" {
		t.Fatalf("report %+v; want the refusal", r)
	}
	if r.Peer != 1 || r.Side != "dial" || !r.Path || r.ByPeer {
		t.Errorf("refusal %+v: want the path to peer 1 blamed (path set)", r)
	}
	n.stop()
}

// syncBuffer is a log a node writes from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}

func (s *syncBuffer) contains(sub string) bool { return strings.Contains(s.String(), sub) }

// A flood of idle connections (each holding a handshake open, saying
// nothing) takes at most MaxPending slots: a new connection evicts the
// oldest of them (closed by the node and counted as shed), and idle ones
// are closed once their HelloTimeout passes.
func TestNodeShedsIdleConnections(t *testing.T) {
	const pending = 3
	n, _, addr := cluster3(t, Options{MaxPending: pending, HelloTimeout: 300 * time.Millisecond})
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range pending + 1 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	// Every one is closed by the node: the first evicted by the last
	// (or timed out), the others after HelloTimeout.
	for i, c := range idle {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(make([]byte, 1)); errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("idle connection %d outlived the HELLO timeout", i)
		}
	}
	if st := n.stop(); st.Shed < 1 {
		t.Errorf("stats %+v: no connection counted as shed", st)
	}
}

// The slowloris (#39 item 3): 256 connections that say nothing,
// each reopened as soon as the node closes it, hold every handshake slot;
// an honest peer on the roster still completes its handshake at once (in
// 1 s on an idle host; the bound asserted is generous). Before, the new
// connection was closed unread while the slots were held (1 handshake in
// 247 over 25 s).
func TestSlowlorisStarvesNoRosterPeer(t *testing.T) {
	const flood = DefaultMaxPending
	n, keys, addr := cluster3(t, Options{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var opened atomic.Int64
	for range flood {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", addr)
				if err != nil {
					time.Sleep(time.Millisecond)
					continue
				}
				opened.Add(1)
				// Held until the node closes it (or the test ends).
				go func() { <-stop; c.Close() }()
				c.Read(make([]byte, 1))
				c.Close()
			}
		})
	}
	end := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer end()
	for opened.Load() < 2*flood { // every slot taken, and being retaken
		time.Sleep(5 * time.Millisecond)
	}
	peer := &Handshaker{Key: keys[1], Policy: pow.PolicyFor(IdentityParams(testBits)), Timeout: 10 * time.Second}
	for i := range 5 {
		began := time.Now()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = peer.Dial(c, keys[0].ID)
		c.Close()
		took := time.Since(began)
		if err != nil {
			t.Fatalf("handshake %d of the roster peer under the slowloris: %v (after %v)", i, err, took)
		}
		if took > 5*time.Second {
			t.Errorf("handshake %d of the roster peer took %v under the slowloris", i, took)
		}
		t.Logf("handshake %d under a %d-connection slowloris: %v", i, flood, took)
	}
	end()
	n.stop()
}
