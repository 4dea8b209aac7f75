package live

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

const testBits = 4

func mint(t *testing.T) *pow.Key {
	t.Helper()
	k, err := LoadOrMint(context.Background(), "", IdentityParams(testBits))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func handshaker(k *pow.Key, show *pow.Identity) *Handshaker {
	return &Handshaker{Key: k, Show: show, Policy: pow.PolicyFor(IdentityParams(testBits)), Timeout: 5 * time.Second}
}

type outcome struct {
	peer int
	err  error
}

// acceptOn runs acceptor's side on c, the ids in roster known, then
// closes c; its outcome arrives on the channel returned.
func acceptOn(acceptor *Handshaker, c net.Conn, roster map[nodes.ID]int) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		p, _, _, err := acceptor.Accept(c, func(id nodes.ID) (int, bool) { p, ok := roster[id]; return p, ok })
		c.Close()
		done <- outcome{p, err}
	}()
	return done
}

// shake runs a dialer and an acceptor against each other over an in-memory
// connection. The acceptor knows the ids in roster.
func shake(dialer, acceptor *Handshaker, want nodes.ID, roster map[nodes.ID]int) (dialErr error, accepted outcome) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	done := acceptOn(acceptor, b, roster)
	_, _, dialErr = dialer.Dial(a, want)
	a.Close()
	return dialErr, <-done
}

func TestHandshakeHonest(t *testing.T) {
	d, acc := mint(t), mint(t)
	var sent, read [numFrameKinds]int
	count := func(s bool, k FrameKind) {
		if s {
			sent[k]++
		} else {
			read[k]++
		}
	}
	hd, ha := handshaker(d, nil), handshaker(acc, nil)
	hd.Count = count
	dialErr, got := shake(hd, ha, acc.ID, map[nodes.ID]int{d.ID: 3})
	if dialErr != nil || got.err != nil || got.peer != 3 {
		t.Fatalf("honest handshake: dial %v, accept %+v", dialErr, got)
	}
	// The dialer sends HELLO and PROOF, and reads HELLO, PROOF, WELCOME.
	if sent[FrameHello] != 1 || sent[FrameProof] != 1 || read[FrameHello] != 1 || read[FrameProof] != 1 || read[FrameWelcome] != 1 {
		t.Fatalf("frames counted: sent %v, read %v", sent, read)
	}
}

// A peer with a forged or under-difficulty identity is refused, with the
// reason pow gives, on whichever side of the link it stands; the peer is
// told it was refused.
func TestHandshakeRefusesDishonestIdentities(t *testing.T) {
	want := map[string]error{"forged-id": pow.ErrKeyMismatch, "unsolved": pow.ErrPuzzle, "weak": pow.ErrPolicy, "stolen": pow.ErrSignature}
	honest := mint(t)
	for _, mode := range ForgeModes {
		key, show, err := Forge(context.Background(), mode, IdentityParams(testBits))
		if err != nil {
			t.Fatal(err)
		}
		bad := handshaker(key, show)
		roster := map[nodes.ID]int{show.ID: 1, honest.ID: 0}

		// The dishonest node dials an honest one.
		dialErr, got := shake(bad, handshaker(honest, nil), honest.ID, roster)
		var re *RefusedError
		if !errors.As(got.err, &re) || re.Remote || !errors.Is(got.err, want[mode]) || re.Peer != show.ID {
			t.Errorf("%s dialing: acceptor got %v (%+v); want a refusal wrapping %v", mode, got.err, re, want[mode])
		}
		if !errors.As(dialErr, &re) || !re.Remote {
			t.Errorf("%s dialing: the dialer was not told it was refused: %v", mode, dialErr)
		}

		// An honest node dials the dishonest one.
		dialErr, got = shake(handshaker(honest, nil), bad, show.ID, roster)
		if !errors.As(dialErr, &re) || re.Remote || !errors.Is(dialErr, want[mode]) {
			t.Errorf("%s accepting: dialer got %v; want a refusal wrapping %v", mode, dialErr, want[mode])
		}
		if !errors.As(got.err, &re) || !re.Remote {
			t.Errorf("%s accepting: the acceptor was not told it was refused: %v", mode, got.err)
		}
	}
}

func TestHandshakeRefusesStrangersAndWrongPeers(t *testing.T) {
	d, acc, other := mint(t), mint(t), mint(t)
	_, got := shake(handshaker(d, nil), handshaker(acc, nil), acc.ID, map[nodes.ID]int{other.ID: 0})
	if _, ok := isRefusal(got.err); !ok || !strings.Contains(got.err.Error(), "not in this run") {
		t.Errorf("an identity outside the run: %v", got.err)
	}
	dialErr, _ := shake(handshaker(d, nil), handshaker(acc, nil), other.ID, map[nodes.ID]int{d.ID: 0})
	if _, ok := isRefusal(dialErr); !ok || !strings.Contains(dialErr.Error(), "not the peer this link leads to") {
		t.Errorf("a link that leads to another peer: %v", dialErr)
	}
}

// A PROOF is bound to its role, challenge, both ids and both ephemeral
// keys: what one side proves in one handshake verifies nowhere else, and a
// relay cannot swap in an ephemeral key of its own.
func TestTranscriptSeparation(t *testing.T) {
	k, peer := mint(t), mint(t)
	c := make([]byte, ChallengeLen)
	e1, e2 := make([]byte, EphemeralLen), make([]byte, EphemeralLen)
	e2[0] = 1
	key := make([]byte, 32)
	mac := proofMAC(key, transcript("dial", c, k.ID, peer.ID, e1, e2))
	if !hmac.Equal(mac, proofMAC(key, transcript("dial", c, k.ID, peer.ID, e1, e2))) {
		t.Fatal("a PROOF does not verify over its own transcript")
	}
	c2 := make([]byte, ChallengeLen)
	c2[0] = 1
	key2 := append([]byte(nil), key...)
	key2[0] = 1
	for name, got := range map[string][]byte{
		"other role":          proofMAC(key, transcript("accept", c, k.ID, peer.ID, e1, e2)),
		"other challenge":     proofMAC(key, transcript("dial", c2, k.ID, peer.ID, e1, e2)),
		"other peer":          proofMAC(key, transcript("dial", c, k.ID, k.ID, e1, e2)),
		"other ephemeral key": proofMAC(key, transcript("dial", c, k.ID, peer.ID, e1, e1)),
		"keys swapped":        proofMAC(key, transcript("dial", c, k.ID, peer.ID, e2, e1)),
		"other link's key":    proofMAC(key2, transcript("dial", c, k.ID, peer.ID, e1, e2)),
	} {
		if hmac.Equal(mac, got) {
			t.Errorf("%s: a PROOF verified where it must not", name)
		}
	}
	// A certificate is bound to the id and the key.
	cert := k.Sign(certMessage(k.ID, e1))
	if k.VerifySignature(certMessage(k.ID, e1), cert) != nil {
		t.Fatal("a certificate does not verify")
	}
	if k.VerifySignature(certMessage(peer.ID, e1), cert) == nil || k.VerifySignature(certMessage(k.ID, e2), cert) == nil {
		t.Error("a certificate verified for another id or another key")
	}
	// The proof key is neither session key.
	send, recv, proof, err := sessionKeys(make([]byte, 32), c, c2)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(proof, send) || bytes.Equal(proof, recv) || bytes.Equal(send, recv) || len(proof) != 32 {
		t.Errorf("session keys %x, %x and proof key %x are not three distinct 32-byte keys", send, recv, proof)
	}
}

func TestLoadOrMintKeepsTheIdentity(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadOrMint(context.Background(), dir, IdentityParams(testBits))
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadOrMint(context.Background(), dir, IdentityParams(testBits))
	if err != nil || b.ID != a.ID || !a.Private.Equal(b.Private) {
		t.Fatalf("a restarted node came back as %v (%v), was %v", b.ID, err, a.ID)
	}
}

// A peer's identity file is decoded once per handshaker, however many
// times it is shown; the cache saves the decoding only: a thief showing a
// file already decoded for its honest owner is still refused on the
// signature, and a file that does not decode is never kept.
func TestHandshakeDecodesEachFileOnce(t *testing.T) {
	d, acc, thief := mint(t), mint(t), mint(t)
	hd, ha := handshaker(d, nil), handshaker(acc, nil)
	roster := map[nodes.ID]int{d.ID: 1}
	for i := range 3 {
		if dialErr, got := shake(hd, ha, acc.ID, roster); dialErr != nil || got.err != nil || got.peer != 1 {
			t.Fatalf("handshake %d: dial %v, accept %+v", i, dialErr, got)
		}
	}
	if len(ha.files.decoded) != 1 || len(hd.files.decoded) != 1 {
		t.Fatalf("after 3 handshakes the acceptor kept %d decoded files and the dialer %d; want 1 each", len(ha.files.decoded), len(hd.files.decoded))
	}
	_, got := shake(handshaker(thief, &d.Identity), ha, acc.ID, roster)
	if !errors.Is(got.err, pow.ErrSignature) {
		t.Errorf("a thief showing an identity whose file is cached: accept gave %v; want a refusal wrapping %v", got.err, pow.ErrSignature)
	}
	file, err := pow.Encode(&d.Identity)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), file...)
	bad[len(bad)/2] ^= 1
	if _, err := ha.decode(bad); err == nil {
		t.Fatal("a file with a flipped byte decoded")
	}
	if len(ha.files.decoded) != 1 {
		t.Errorf("a file that does not decode was kept: %d decoded files", len(ha.files.decoded))
	}
	// Strangers' files beyond the bound are decoded, not kept.
	for i := range maxDecoded + 4 {
		k := mint(t)
		f, err := pow.Encode(&k.Identity)
		if err != nil {
			t.Fatal(err)
		}
		if id, err := ha.decode(f); err != nil || id.ID != k.ID {
			t.Fatalf("decode %d: %v, %v", i, id, err)
		}
	}
	if len(ha.files.decoded) != maxDecoded {
		t.Errorf("%d decoded files kept; want the bound, %d", len(ha.files.decoded), maxDecoded)
	}
}

// What the roster vouches for (Gate.vouch: an identity the harness
// checked) is not hashed again, and only its puzzle is taken on trust: a
// dialer showing the vouched identity without its key is still refused
// (the signature over this link's challenge), and one showing any other
// identity under the vouched id (a forged puzzle) is verified and
// refused.
func TestVouchedIdentitySkipsOnlyThePuzzle(t *testing.T) {
	d, acc, thief := mint(t), mint(t), mint(t)
	ha := handshaker(acc, nil)
	ha.Gate = NewGate()
	verified := 0
	ha.Gate.verify = func(id *pow.Identity) error { verified++; return id.Verify() }
	ha.Gate.vouch([]*pow.Identity{&d.Identity})
	roster := map[nodes.ID]int{d.ID: 1}

	if dialErr, got := shake(handshaker(d, nil), ha, acc.ID, roster); dialErr != nil || got.err != nil || got.peer != 1 {
		t.Fatalf("vouched honest dialer: dial %v, accept %+v", dialErr, got)
	}
	if verified != 0 {
		t.Errorf("the vouched identity was verified %d times; want none", verified)
	}

	stolen := d.Identity
	if _, got := shake(handshaker(thief, &stolen), ha, acc.ID, roster); !errors.Is(got.err, pow.ErrSignature) {
		t.Errorf("vouched identity shown without its key: accept %v, want %v", got.err, pow.ErrSignature)
	}

	forged := d.Identity
	forged.Bits = 40 // claims a puzzle its id does not solve
	if _, got := shake(handshaker(d, &forged), ha, acc.ID, roster); !errors.Is(got.err, pow.ErrPuzzle) {
		t.Errorf("another identity under the vouched id: accept %v, want %v", got.err, pow.ErrPuzzle)
	}
	if verified != 1 {
		t.Errorf("%d verifications; want one, of the identity the roster did not vouch for", verified)
	}
}

// idleTransport is a transport for self that posts nowhere, its listener
// closed when the test ends.
func idleTransport(t *testing.T, self *pow.Key) *netTransport {
	t.Helper()
	tr, err := newNetTransport(Options{Identity: self}, func(event) bool { return true }, make(chan struct{}), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.ln.Close() })
	return tr
}

// A transport takes from a configure's roster only vouched identities
// that decode and are their position's.
func TestVouchedIdentityMustBeItsPositions(t *testing.T) {
	self, a, b := mint(t), mint(t), mint(t)
	tr := idleTransport(t, self)
	file := func(k *pow.Key) string {
		b, err := pow.Encode(&k.Identity)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ranks := []nodes.Rank{self.Rank(), a.Rank(), b.Rank()}
	for _, tc := range []struct {
		name    string
		vouched []string
		ok      bool
	}{
		{"each its position's", []string{"", file(a), file(b)}, true},
		{"swapped", []string{"", file(b), file(a)}, false},
		{"not an identity", []string{"", "{}", ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tr.vouch(&roster{ranks: ranks, self: 0, vouched: tc.vouched})
			if (err == nil) != tc.ok {
				t.Errorf("vouch: %v; want ok %v", err, tc.ok)
			}
		})
	}
}

// recordConn keeps what is written through it.
type recordConn struct {
	net.Conn
	mu    sync.Mutex
	wrote []byte
}

func (c *recordConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.wrote = append(c.wrote, b...)
	c.mu.Unlock()
	return c.Conn.Write(b)
}

// recorded runs an honest handshake and returns the frames each side
// wrote.
func recorded(t *testing.T, hd, ha *Handshaker, want nodes.ID, roster map[nodes.ID]int) (dialer, acceptor []Frame) {
	t.Helper()
	a, b := net.Pipe()
	ra, rb := &recordConn{Conn: a}, &recordConn{Conn: b}
	done := make(chan error, 1)
	go func() {
		_, _, _, err := ha.Accept(rb, func(id nodes.ID) (int, bool) { p, ok := roster[id]; return p, ok })
		b.Close()
		done <- err
	}()
	_, _, err := hd.Dial(ra, want)
	a.Close()
	if aerr := <-done; err != nil || aerr != nil {
		t.Fatalf("recorded handshake: dial %v, accept %v", err, aerr)
	}
	return frames(t, ra.wrote), frames(t, rb.wrote)
}

func rawFrame(t *testing.T, f Frame) []byte {
	t.Helper()
	b, err := AppendFrame(nil, f.Kind, f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replayToAcceptor plays a dialer with no keys at all: it sends hello,
// reads what the acceptor answers, then sends proof. It returns the
// acceptor's outcome and whether the acceptor answered HELLO and PROOF
// (it got as far as the dialer's PROOF).
func replayToAcceptor(t *testing.T, ha *Handshaker, roster map[nodes.ID]int, hello, proof []byte) (outcome, bool) {
	t.Helper()
	a, b := net.Pipe()
	defer a.Close()
	done := acceptOn(ha, b, roster)
	a.SetDeadline(time.Now().Add(5 * time.Second))
	fr := NewFrameReader(a)
	answered := false
	if _, err := a.Write(hello); err == nil {
		f1, err1 := fr.Next()
		if err1 == nil && f1.Kind == FrameHello {
			f2, err2 := fr.Next()
			answered = err2 == nil && f2.Kind == FrameProof
		}
		if answered {
			a.Write(proof)
		}
		fr.Next() // the REFUSE or WELCOME
	}
	a.Close()
	return <-done, answered
}

// certifiedBy is a handshaker for k whose ephemeral key's certificate
// other signed, not k.
func certifiedBy(t *testing.T, k, other *pow.Key) *Handshaker {
	t.Helper()
	h := handshaker(k, nil)
	e, err := newEphemeral()
	if err != nil {
		t.Fatal(err)
	}
	e.cert = other.Sign(certMessage(k.ID, e.pub))
	h.eph.key = e
	return h
}

// A HELLO whose ephemeral key is certified by another key than the
// identity's is refused on either side, wrapping pow.ErrSignature and
// naming the certificate; the acceptor's refusal is anonymous (the dialer
// proved nothing), and the dialer's names the peer it reached.
func TestHandshakeRefusesAnotherKeysCertificate(t *testing.T) {
	d, acc, other := mint(t), mint(t), mint(t)
	badly := func(k *pow.Key) *Handshaker { return certifiedBy(t, k, other) }
	roster := map[nodes.ID]int{d.ID: 1}
	ha := handshaker(acc, nil)
	for i := range 2 {
		dialErr, got := shake(badly(d), ha, acc.ID, roster)
		var re *RefusedError
		if !errors.As(got.err, &re) || re.Remote || got.peer != -1 || re.Peer != d.ID || !errors.Is(got.err, pow.ErrSignature) || !strings.Contains(re.Reason, "certificate of its ephemeral key") {
			t.Errorf("try %d: the acceptor got peer %d, %v; want an anonymous refusal of the certificate", i, got.peer, got.err)
		}
		if !errors.As(dialErr, &re) || !re.Remote {
			t.Errorf("try %d: the dialer was not told it was refused: %v", i, dialErr)
		}
	}
	// A certificate that failed is not kept: the second try checked again.
	if ha.eph.checked != 2 || len(ha.eph.certs) != 0 {
		t.Errorf("after two bad certificates: %d checks, %d kept; want 2 and none", ha.eph.checked, len(ha.eph.certs))
	}
	dialErr, got := shake(handshaker(d, nil), badly(acc), acc.ID, roster)
	var re *RefusedError
	if !errors.As(dialErr, &re) || re.Remote || re.Peer != acc.ID || re.Path || !errors.Is(dialErr, pow.ErrSignature) {
		t.Errorf("dialing a peer with a bad certificate: %v; want a refusal of that peer wrapping %v", dialErr, pow.ErrSignature)
	}
	if !errors.As(got.err, &re) || !re.Remote {
		t.Errorf("the acceptor was not told it was refused: %v", got.err)
	}
	// The honest pair still shakes hands afterwards.
	if dialErr, got := shake(handshaker(d, nil), ha, acc.ID, roster); dialErr != nil || got.err != nil || got.peer != 1 {
		t.Fatalf("honest handshake after the refusals: dial %v, accept %+v", dialErr, got)
	}
}

// A HELLO replayed from an earlier handshake carries a valid certificate
// but its sender lacks the ephemeral private key: neither a PROOF made up
// nor the PROOF of the earlier link verifies on the acceptor's fresh
// challenge, and the refusal is anonymous — the replay proved nothing
// about who sent it. The same holds the other way: an acceptor's HELLO and
// PROOF replayed to a new dial fail on the dialer's fresh challenge.
func TestHandshakeRefusesReplays(t *testing.T) {
	d, acc := mint(t), mint(t)
	hd, ha := handshaker(d, nil), handshaker(acc, nil)
	roster := map[nodes.ID]int{d.ID: 1}
	dialer, acceptor := recorded(t, hd, ha, acc.ID, roster)
	if len(dialer) != 2 || dialer[0].Kind != FrameHello || dialer[1].Kind != FrameProof {
		t.Fatalf("the dialer wrote %v", dialer)
	}
	hello, proof := rawFrame(t, dialer[0]), rawFrame(t, dialer[1])
	madeUp := make([]byte, ProofLen)
	rand.Read(madeUp)
	for name, p := range map[string][]byte{"a PROOF made up": rawFrame(t, Frame{Kind: FrameProof, Payload: madeUp}), "the earlier link's PROOF": proof} {
		got, answered := replayToAcceptor(t, ha, roster, hello, p)
		var re *RefusedError
		if !answered {
			t.Errorf("%s: the acceptor did not answer a HELLO with a valid certificate", name)
		}
		if !errors.As(got.err, &re) || re.Remote || got.peer != -1 || !errors.Is(got.err, ErrProof) {
			t.Errorf("%s after a replayed HELLO: the acceptor got peer %d, %v; want an anonymous refusal wrapping %v", name, got.peer, got.err, ErrProof)
		}
	}

	// The acceptor's side replayed to a new dial.
	if len(acceptor) < 2 || acceptor[0].Kind != FrameHello || acceptor[1].Kind != FrameProof {
		t.Fatalf("the acceptor wrote %v", acceptor)
	}
	a, b := net.Pipe()
	go func() {
		b.SetDeadline(time.Now().Add(5 * time.Second))
		fr := NewFrameReader(b)
		fr.Next() // the dialer's HELLO
		b.Write(append(rawFrame(t, acceptor[0]), rawFrame(t, acceptor[1])...))
		fr.Next() // its REFUSE
		b.Close()
	}()
	_, _, err := hd.Dial(a, acc.ID)
	a.Close()
	var re *RefusedError
	if !errors.As(err, &re) || re.Remote || re.Peer != acc.ID || !errors.Is(err, ErrProof) {
		t.Errorf("an acceptor's HELLO and PROOF replayed to a new dial: %v; want a refusal wrapping %v", err, ErrProof)
	}
}

// A peer's certificate is checked once per handshaker however many links
// show it, concurrent ones included; a new ephemeral key (a restarted
// peer) is checked anew.
func TestHandshakeChecksEachCertificateOnce(t *testing.T) {
	d, acc := mint(t), mint(t)
	hd, ha := handshaker(d, nil), handshaker(acc, nil)
	roster := map[nodes.ID]int{d.ID: 1}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if dialErr, got := shake(hd, ha, acc.ID, roster); dialErr != nil || got.err != nil {
				errs <- fmt.Errorf("dial %v, accept %v", dialErr, got.err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if ha.eph.checked != 1 || hd.eph.checked != 1 {
		t.Fatalf("after 8 handshakes the acceptor checked %d certificates and the dialer %d; want 1 each", ha.eph.checked, hd.eph.checked)
	}
	if dialErr, got := shake(handshaker(d, nil), ha, acc.ID, roster); dialErr != nil || got.err != nil {
		t.Fatalf("a restarted dialer: dial %v, accept %v", dialErr, got.err)
	}
	if ha.eph.checked != 2 || len(ha.eph.certs) != 2 {
		t.Errorf("a new ephemeral key: %d checks, %d kept; want 2 and 2", ha.eph.checked, len(ha.eph.certs))
	}
}

// A certificate the harness vouched for (vouchCerts: the peer's id and
// ephemeral key, with the certificate's bytes) is not verified; the same
// id with another key (a restarted peer) is verified in full, and so is
// the vouched key shown with another certificate (a forgery), which is
// refused and leaves the vouched entry in place.
func TestVouchedCertificateIsNotVerified(t *testing.T) {
	d, acc, other := mint(t), mint(t), mint(t)
	hd, ha := handshaker(d, nil), handshaker(acc, nil)
	e, err := hd.ephemeral()
	if err != nil {
		t.Fatal(err)
	}
	ha.vouchCerts([]nodes.ID{d.ID}, [][]byte{e.pub}, [][]byte{e.cert})
	roster := map[nodes.ID]int{d.ID: 1}
	if dialErr, got := shake(hd, ha, acc.ID, roster); dialErr != nil || got.err != nil || got.peer != 1 {
		t.Fatalf("vouched dialer: dial %v, accept %+v", dialErr, got)
	}
	if ha.eph.checked != 0 {
		t.Errorf("the vouched certificate was verified %d times; want none", ha.eph.checked)
	}

	forged := *e
	forged.cert = other.Sign(certMessage(d.ID, e.pub))
	hf := handshaker(d, nil)
	hf.eph.key = &forged
	_, got := shake(hf, ha, acc.ID, roster)
	var re *RefusedError
	if !errors.As(got.err, &re) || got.peer != -1 || !errors.Is(got.err, pow.ErrSignature) || !strings.Contains(re.Reason, "certificate of its ephemeral key") {
		t.Errorf("the vouched key with another certificate: accept %d, %v; want a refusal of the certificate", got.peer, got.err)
	}
	if ha.eph.checked != 1 {
		t.Errorf("the vouched key with another certificate: %d verifications; want 1", ha.eph.checked)
	}
	if dialErr, got := shake(hd, ha, acc.ID, roster); dialErr != nil || got.err != nil || ha.eph.checked != 1 {
		t.Errorf("the vouched dialer after a forgery: dial %v, accept %v, %d verifications; want none more", dialErr, got.err, ha.eph.checked)
	}

	// A restarted dialer: its new key is verified once, then kept.
	hr := handshaker(d, nil)
	for range 2 {
		if dialErr, got := shake(hr, ha, acc.ID, roster); dialErr != nil || got.err != nil {
			t.Fatalf("a restarted dialer: dial %v, accept %v", dialErr, got.err)
		}
	}
	if ha.eph.checked != 2 {
		t.Errorf("a restarted dialer's new key: %d verifications in all; want 2", ha.eph.checked)
	}
	// A restarted dialer whose new key's certificate is bad is refused.
	hb := certifiedBy(t, d, other)
	if _, got := shake(hb, ha, acc.ID, roster); !errors.Is(got.err, pow.ErrSignature) || ha.eph.checked != 3 {
		t.Errorf("a new key with a bad certificate under the vouched id: accept %v after %d verifications; want %v after 3", got.err, ha.eph.checked, pow.ErrSignature)
	}
}

// A transport takes a configure's vouched certificates only when each
// decodes, records them under their position's id, and skips its own.
func TestVouchedCertificatesDecode(t *testing.T) {
	self, a, b := mint(t), mint(t), mint(t)
	tr := idleTransport(t, self)
	ranks := []nodes.Rank{self.Rank(), a.Rank(), b.Rank()}
	eph := bytes.Repeat([]byte{7}, EphemeralLen)
	good := VouchedCert(eph, Certify(a, a.ID, eph))
	for _, tc := range []struct {
		name  string
		certs []string
	}{
		{"not base64", []string{"", "!!", ""}},
		{"too short", []string{"", VouchedCert(eph[:8], nil), ""}},
		{"beyond the roster", []string{"", "", "", good}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tr.vouch(&roster{ranks: ranks, self: 0, vouchedCerts: tc.certs}); err == nil {
				t.Errorf("vouch took %q", tc.certs)
			}
			if len(tr.hs.eph.certs) != 0 {
				t.Errorf("a refused configure recorded %d certificates", len(tr.hs.eph.certs))
			}
		})
	}
	if err := tr.vouch(&roster{ranks: ranks, self: 0, vouchedCerts: []string{good, good, ""}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.hs.eph.certs[newCertKey(a.ID, eph)]; !ok || len(tr.hs.eph.certs) != 1 {
		t.Errorf("recorded %d certificates; want position 1's alone", len(tr.hs.eph.certs))
	}
}
