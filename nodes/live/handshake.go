package live

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// The handshake on a new link, dialer D to acceptor A:
//
//	D → A  HELLO(cD, eD, certD, identity D)
//	A      checks D's puzzle is the cluster's and D is in the roster, then
//	       verifies D's identity (the only costly step, bounded by a Gate)
//	       and certD, D's signature over eD (once per peer and key, and
//	       not at all for the key and certificate the harness vouched for)
//	A → D  HELLO(cA, eA, certA, identity A), PROOF(A's MAC of transcript("accept", cD, A, D, eA, eD))
//	D      verifies A's identity, that it is the peer D meant to reach,
//	       certA, and A's MAC over D's own fresh challenge
//	D → A  PROOF(D's MAC of transcript("dial", cA, D, A, eD, eA))
//	A      verifies D's MAC
//	A → D  WELCOME
//	D → A  SEALED(message) ...   under a key from X25519(eD, eA) (session.go)
//
// Either side that refuses sends REFUSE(reason) and closes. A node signs
// its ephemeral key once, with its identity's key, when it starts, and
// shows the certificate (certMessage) to the harness in its hello too; a
// certificate the harness checked comes back in configure
// (Config.VouchedCerts) and no peer verifies it again. On each link it
// proves it holds that ephemeral key's private half by a MAC under a key
// derived from the two sides' X25519 secret and both fresh challenges
// (sessionKeys), which only a holder of one of the two ephemeral private
// keys can compute. A copied identity file is useless without its private
// key (it cannot sign a certificate for a key of the thief's, and a HELLO
// replayed with its owner's certificate leaves the thief without the
// ephemeral private key the MAC needs), a forged one fails pow's checks,
// and one below the policy's difficulty is refused before any hashing.
//
// Blame: an acceptor learns who a dialer is only from its PROOF, so a
// refusal before one verified is anonymous (RefusedError.Peer says what was
// claimed, never who was there): a stranger claiming a peer's id cannot get
// that peer excluded — nor can one replaying that peer's HELLO, whose
// certificate is valid and proves nothing about who sent it. A dialer
// reached the address the harness gave for the peer it wanted, so what it
// refuses is that link's.

// ErrProof is wrapped by the refusal of a PROOF whose MAC does not verify:
// the peer does not hold the ephemeral key it showed, or the PROOF is
// another link's.
var ErrProof = errors.New("the handshake proof does not verify")

// transcript is what a side's PROOF authenticates: a domain separator, its
// role, the peer's fresh challenge, both ids and both ephemeral keys (the
// prover's first), so a PROOF cannot be replayed in another role, on
// another link or for another peer, and the session key is the two
// certified ephemeral keys' holders' alone.
func transcript(role string, challenge []byte, prover, verifier nodes.ID, proverEph, verifierEph []byte) []byte {
	b := make([]byte, 0, 160+len(challenge))
	b = append(b, "electbench/live/v3 handshake\x00"...)
	b = append(b, role...)
	b = append(b, 0)
	b = append(b, challenge...)
	p, v := prover.Bytes(), verifier.Bytes()
	b = append(b, p[:]...)
	b = append(b, v[:]...)
	b = append(b, proverEph...)
	return append(b, verifierEph...)
}

// proofMAC is a PROOF's payload: the MAC of a transcript under the link's
// proof key (sessionKeys).
func proofMAC(key, transcript []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(transcript)
	return m.Sum(nil)
}

// certMessage is what a node's identity signs to certify its ephemeral
// key: a domain separator apart from every other signed message, the id
// it shows and the key. A certificate is bound to the id, so no other
// identity can show it as its own.
func certMessage(id nodes.ID, pub []byte) []byte {
	b := make([]byte, 0, 64+len(pub))
	b = append(b, "electbench/live/v3 ephemeral\x00"...)
	idb := id.Bytes()
	b = append(b, idb[:]...)
	return append(b, pub...)
}

// RefusedError is a handshake that failed on an identity: ours was refused
// by the peer (Remote), or we refused the peer's.
type RefusedError struct {
	Remote bool     // the peer refused us
	Peer   nodes.ID // the identity the peer claimed; zero if it never showed a decodable one
	Reason string
	Err    error // the pow error behind a refusal of ours (errors.Is ErrPuzzle, ErrPolicy, ...)
	// Path says a dial met another identity than the one its link leads
	// to: what is wrong is the path (a proxy pointed elsewhere), not the
	// peer the link was meant for, which showed nothing.
	Path bool
}

func (e *RefusedError) Error() string {
	if e.Remote {
		return "refused by the peer: " + e.Reason
	}
	return "refused the peer: " + e.Reason
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Handshaker runs both sides of the handshake for one node.
type Handshaker struct {
	Key    *pow.Key      // this node's identity and private key: certifies the ephemeral key
	Show   *pow.Identity // the identity shown to peers; nil means Key's own (tests forge here)
	Policy pow.Policy    // what a peer's identity must satisfy (pow.PolicyFor the cluster's puzzle)
	// Gate bounds the costly verifications; nil verifies with no bound
	// (tests of the handshake alone).
	Gate    *Gate
	Timeout time.Duration // the whole handshake's deadline; 0 means 10 s
	// HelloTimeout, on accepting, is the deadline of the dialer's HELLO,
	// shorter than Timeout; 0 means DefaultHelloTimeout.
	HelloTimeout time.Duration
	// Count, when set, is told of every frame written (sent) or read on a
	// connection this handshaker opened, the handshake's and later ones.
	Count func(sent bool, k FrameKind)

	// trial, when set, gives the policy of the trial running now in place
	// of Policy: a node's transport sets it, so that each configure's
	// policy reaches the handshakes its connections run concurrently
	// through the transport's roster, with no write to a shared field.
	trial func() *pow.Policy

	// files caches the encoding of the identity shown and the peers'
	// identities decoded: a node shakes hands with every peer, on its
	// links out and in, with the same bytes each time, and the encoding
	// (JSON with a canonical form and a checksum) costs more than a
	// signature. Only what decoded is kept, at most maxDecoded.
	files struct {
		sync.Mutex
		shown   []byte
		decoded map[string]*pow.Identity
	}

	// eph is the ephemeral key this side shows in every handshake, made
	// at its first, and secrets its X25519 secrets with peers' ephemeral
	// keys, at most maxDecoded. A key made per handshake cost two X25519
	// key generations and two secrets a link, a third of a 64-node
	// cluster's handshake CPU: with one a node, a pair's two links (one
	// each way, shaking hands at once) compute one secret a side, while
	// every link's keys stay its own (sessionKeys salts them with both
	// sides' fresh challenges) and only the holders of the two certified
	// ephemeral keys can compute them.
	eph struct {
		sync.Mutex
		key     *ephemeral
		secrets map[[EphemeralLen]byte]*sharedSecret
		// certs are the peers' certificates checked, by the peer's id
		// and ephemeral key, at most maxDecoded (and those the harness
		// vouched for, vouchCerts, beyond it): a peer signs its key
		// once, and is checked once however many links it shows it
		// on. A certificate that failed is not kept.
		certs map[certKey]*certCheck
		// checked counts the certificate signatures verified (tests).
		checked int
	}
}

// certKey names a certificate checked: the peer's id, then its ephemeral
// key. The id stands for the public key the signature was checked under:
// the identity was verified first (pow: the id is its key's hash).
type certKey [32 + EphemeralLen]byte

func newCertKey(id nodes.ID, eph []byte) certKey {
	var k certKey
	idb := id.Bytes()
	copy(k[:32], idb[:])
	copy(k[32:], eph)
	return k
}

// certCheck is a certificate being checked (done open) or checked.
type certCheck struct {
	done chan struct{}
	err  error
	// vouched is the certificate the harness checked (vouchCerts): only
	// a HELLO showing exactly it is spared the verification.
	vouched []byte
}

// Certify is key's certificate of the ephemeral key eph for the identity
// shown, id: its signature over certMessage.
func Certify(key *pow.Key, id nodes.ID, eph []byte) []byte {
	return key.Sign(certMessage(id, eph))
}

// VerifyCertificate reports whether cert is id's certificate of the
// ephemeral key eph (its signature over certMessage): what a peer checks
// in a HELLO, and the harness in a node's hello line before it vouches
// for the key (Config.VouchedCerts).
func VerifyCertificate(id *pow.Identity, eph, cert []byte) error {
	if len(eph) != EphemeralLen {
		return fmt.Errorf("an ephemeral key of %d bytes, not %d", len(eph), EphemeralLen)
	}
	return id.VerifySignature(certMessage(id.ID, eph), cert)
}

// vouchCerts records the certificates the harness checked itself (each
// process's, in its hello) as checked, by the peer's id and ephemeral key
// with the certificate's bytes: a HELLO showing exactly one of them costs
// no verification, one showing another certificate under the same id and
// key is verified in full and not kept, and any other key (a restarted
// peer's new one) is checked as ever. They are kept whatever the bound:
// they come from the harness, at most one a process. The transport calls
// it at configure, before that configure's links dial; a later configure
// adds its own (each was checked, whatever trial it came with), as
// Gate.vouch does.
func (h *Handshaker) vouchCerts(id []nodes.ID, eph, cert [][]byte) {
	h.eph.Lock()
	defer h.eph.Unlock()
	if h.eph.certs == nil {
		h.eph.certs = map[certKey]*certCheck{}
	}
	for i := range id {
		c := &certCheck{done: make(chan struct{}), vouched: cert[i]}
		close(c.done)
		h.eph.certs[newCertKey(id[i], eph[i])] = c
	}
}

// sharedSecret is an X25519 secret being computed (done open) or
// computed.
type sharedSecret struct {
	done   chan struct{}
	secret []byte
	err    error
}

// ephemeral is this side's ephemeral key, made and certified (signed by
// h.Key over the id shown, so a shown identity not h.Key's has a
// certificate that fails) at the first call: a node's Run, before its
// hello shows it to the harness.
func (h *Handshaker) ephemeral() (*ephemeral, error) {
	h.eph.Lock()
	defer h.eph.Unlock()
	if h.eph.key == nil {
		k, err := newEphemeral()
		if err != nil {
			return nil, err
		}
		k.cert = Certify(h.Key, h.shown().ID, k.pub)
		h.eph.key = k
	}
	return h.eph.key, nil
}

// checkCert verifies that peer's identity signed its ephemeral key eph
// (cert), once per peer and key for every handshake that shows them:
// those running at once wait for the first. The peer's identity must have
// been verified already. A certificate that fails is forgotten once its
// waiters have their error, so it is never taken for one that passed; the
// bound keeps strangers from filling memory (beyond it, certificates are
// checked and not kept).
func (h *Handshaker) checkCert(peer *pow.Identity, eph, cert []byte) error {
	k := newCertKey(peer.ID, eph)
	h.eph.Lock()
	c, ok := h.eph.certs[k]
	switch {
	case ok && c.vouched != nil && !bytes.Equal(c.vouched, cert),
		!ok && len(h.eph.certs) >= maxDecoded:
		h.eph.checked++
		h.eph.Unlock()
		return certError(peer, VerifyCertificate(peer, eph, cert))
	case ok:
		h.eph.Unlock()
		<-c.done
		return c.err
	}
	if h.eph.certs == nil {
		h.eph.certs = map[certKey]*certCheck{}
	}
	c = &certCheck{done: make(chan struct{})}
	h.eph.certs[k] = c
	h.eph.checked++
	h.eph.Unlock()
	c.err = certError(peer, VerifyCertificate(peer, eph, cert))
	close(c.done)
	if c.err != nil {
		h.eph.Lock()
		if h.eph.certs[k] == c { // not replaced meanwhile by the harness's word
			delete(h.eph.certs, k)
		}
		h.eph.Unlock()
	}
	return c.err
}

// certError is the refusal of peer's certificate that failed with err
// (nil if it passed).
func certError(peer *pow.Identity, err error) error {
	if err == nil {
		return nil
	}
	return &RefusedError{Peer: peer.ID, Reason: "identity " + peer.ID.String() + ": the certificate of its ephemeral key does not verify: " + err.Error(), Err: err}
}

// secret is the X25519 secret of our ephemeral key, mine, and a peer's,
// theirs, computed once for every handshake that meets theirs: those
// running at once wait for the first. It is a function of the two keys
// alone, so whoever shows theirs cannot make it wrong; the bound keeps
// strangers' keys from filling memory (beyond it, secrets are computed
// and not kept).
func (h *Handshaker) secret(mine *ephemeral, theirs []byte) ([]byte, error) {
	var k [EphemeralLen]byte
	copy(k[:], theirs)
	h.eph.Lock()
	s, ok := h.eph.secrets[k]
	switch {
	case ok:
		h.eph.Unlock()
		<-s.done
		return s.secret, s.err
	case len(h.eph.secrets) >= maxDecoded:
		h.eph.Unlock()
		return mine.secret(theirs)
	}
	if h.eph.secrets == nil {
		h.eph.secrets = map[[EphemeralLen]byte]*sharedSecret{}
	}
	s = &sharedSecret{done: make(chan struct{})}
	h.eph.secrets[k] = s
	h.eph.Unlock()
	s.secret, s.err = mine.secret(theirs)
	close(s.done)
	return s.secret, s.err
}

// maxDecoded bounds the decoded identities, and the secrets, a Handshaker
// keeps: beyond a run's roster (at most 128 nodes, each with a restart's
// identity) only strangers' would come, and theirs are made anew each time.
const maxDecoded = 512

// shownFile is the encoding of the identity this side shows.
func (h *Handshaker) shownFile() ([]byte, error) {
	h.files.Lock()
	defer h.files.Unlock()
	if h.files.shown == nil {
		b, err := pow.Encode(h.shown())
		if err != nil {
			return nil, err
		}
		h.files.shown = b
	}
	return h.files.shown, nil
}

// decode decodes a peer's identity file, once per distinct file. The
// identity returned is shared: callers only read it.
func (h *Handshaker) decode(b []byte) (*pow.Identity, error) {
	h.files.Lock()
	id, ok := h.files.decoded[string(b)]
	h.files.Unlock()
	if ok {
		return id, nil
	}
	id, err := pow.Decode(b)
	if err != nil {
		return nil, err
	}
	h.files.Lock()
	defer h.files.Unlock()
	if h.files.decoded == nil {
		h.files.decoded = map[string]*pow.Identity{}
	}
	if len(h.files.decoded) < maxDecoded {
		h.files.decoded[string(b)] = id
	}
	return id, nil
}

// reader returns a frame reader on c that counts what it reads.
func (h *Handshaker) reader(c net.Conn) *FrameReader {
	fr := NewFrameReader(c)
	if h.Count != nil {
		fr.OnFrame = func(k FrameKind) { h.Count(false, k) }
	}
	return fr
}

// write writes frames of the given kinds, counting them.
func (h *Handshaker) write(c net.Conn, b []byte, kinds ...FrameKind) error {
	if _, err := c.Write(b); err != nil {
		return err
	}
	if h.Count != nil {
		for _, k := range kinds {
			h.Count(true, k)
		}
	}
	return nil
}

// policy is what a peer's identity must satisfy now.
func (h *Handshaker) policy() *pow.Policy {
	if h.trial != nil {
		return h.trial()
	}
	return &h.Policy
}

func (h *Handshaker) shown() *pow.Identity {
	if h.Show != nil {
		return h.Show
	}
	return &h.Key.Identity
}

func (h *Handshaker) deadline(c net.Conn) {
	d := h.Timeout
	if d <= 0 {
		d = 10 * time.Second
	}
	c.SetDeadline(time.Now().Add(d))
}

// hello builds our HELLO frame with a fresh challenge and our ephemeral
// key and its certificate.
func (h *Handshaker) hello() (frame, challenge []byte, eph *ephemeral, err error) {
	challenge = make([]byte, ChallengeLen)
	if _, err := rand.Read(challenge); err != nil {
		return nil, nil, nil, err
	}
	if eph, err = h.ephemeral(); err != nil {
		return nil, nil, nil, err
	}
	file, err := h.shownFile()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("encoding our identity: %w", err)
	}
	payload := make([]byte, 0, ChallengeLen+EphemeralLen+SignatureLen+len(file))
	payload = append(append(append(append(payload, challenge...), eph.pub...), eph.cert...), file...)
	frame, err = AppendFrame(nil, FrameHello, payload)
	return frame, challenge, eph, err
}

// peerHello is what a peer's HELLO showed.
type peerHello struct {
	challenge, eph, cert []byte
	id                   *pow.Identity
}

// readHello decodes a peer's HELLO and checks what costs no hashing: the
// identity's puzzle is the cluster's (Policy.Admit). The caller checks the
// id is one it expects, then verifies it (h.verify), then the certificate
// of its ephemeral key (h.checkCert).
func (h *Handshaker) readHello(fr *FrameReader) (*peerHello, error) {
	f, err := fr.Next()
	if err != nil {
		return nil, err
	}
	if f.Kind == FrameRefuse {
		return nil, &RefusedError{Remote: true, Reason: string(f.Payload)}
	}
	if f.Kind != FrameHello {
		return nil, fmt.Errorf("%w: %s frame where HELLO was expected", ErrFrame, f.Kind)
	}
	const certAt, fileAt = ChallengeLen + EphemeralLen, ChallengeLen + EphemeralLen + SignatureLen
	p := &peerHello{
		challenge: append([]byte(nil), f.Payload[:ChallengeLen]...),
		eph:       append([]byte(nil), f.Payload[ChallengeLen:certAt]...),
		cert:      append([]byte(nil), f.Payload[certAt:fileAt]...),
	}
	p.id, err = h.decode(f.Payload[fileAt:])
	if err != nil {
		return nil, &RefusedError{Reason: "identity: " + err.Error(), Err: err}
	}
	if err := h.policy().Admit(p.id); err != nil {
		return nil, &RefusedError{Peer: p.id.ID, Reason: "identity " + p.id.ID.String() + ": " + err.Error(), Err: err}
	}
	return p, nil
}

// verify pays for the proof of work of the identity shown by a peer from
// source ("" for one this side dialled), through the gate.
func (h *Handshaker) verify(source string, id *pow.Identity) error {
	err := h.Gate.Verify(source, id)
	if err != nil {
		return &RefusedError{Peer: id.ID, Reason: "identity " + id.ID.String() + ": " + err.Error(), Err: err}
	}
	return nil
}

// readProof reads a peer's PROOF and checks it is want's MAC under key.
func readProof(fr *FrameReader, peer *pow.Identity, key, want []byte) error {
	f, err := fr.Next()
	if err != nil {
		return err
	}
	if f.Kind == FrameRefuse {
		return &RefusedError{Remote: true, Peer: peer.ID, Reason: string(f.Payload)}
	}
	if f.Kind != FrameProof {
		return fmt.Errorf("%w: %s frame where PROOF was expected", ErrFrame, f.Kind)
	}
	if !hmac.Equal(f.Payload, proofMAC(key, want)) {
		return &RefusedError{Peer: peer.ID, Reason: "identity " + peer.ID.String() + ": the proof over our challenge does not verify under its ephemeral key", Err: ErrProof}
	}
	return nil
}

// refuse tells the peer why, best effort, and returns err.
func (h *Handshaker) refuse(c net.Conn, err error) error {
	var re *RefusedError
	if errors.As(err, &re) && !re.Remote {
		reason := re.Reason
		if len(reason) > MaxReason {
			reason = strings.ToValidUTF8(reason[:MaxReason], "")
		}
		if b, ferr := AppendFrame(nil, FrameRefuse, []byte(reason)); ferr == nil {
			h.write(c, b, FrameRefuse)
		}
	}
	return err
}

// Dial runs the dialer's side on c, which should reach the peer whose id is
// want. It returns the reader to go on with (it may hold buffered bytes)
// and the session that seals what this side sends.
func (h *Handshaker) Dial(c net.Conn, want nodes.ID) (*FrameReader, *Session, error) {
	h.deadline(c)
	defer c.SetDeadline(time.Time{})
	fr := h.reader(c)
	hello, mine, myEph, err := h.hello()
	if err != nil {
		return nil, nil, err
	}
	if err := h.write(c, hello, FrameHello); err != nil {
		return nil, nil, err
	}
	ph, err := h.readHello(fr)
	if err != nil {
		return nil, nil, h.refuse(c, err)
	}
	peer := ph.id
	if peer.ID != want {
		return nil, nil, h.refuse(c, &RefusedError{Peer: peer.ID, Path: true, Reason: "identity " + peer.ID.String() + " is not the peer this link leads to (" + want.String() + ")"})
	}
	if err := h.verify("", peer); err != nil {
		return nil, nil, h.refuse(c, err)
	}
	if err := h.checkCert(peer, ph.eph, ph.cert); err != nil {
		return nil, nil, h.refuse(c, err)
	}
	secret, err := h.secret(myEph, ph.eph)
	if err != nil {
		return nil, nil, h.refuse(c, &RefusedError{Peer: peer.ID, Reason: err.Error(), Err: err})
	}
	send, _, proofKey, err := sessionKeys(secret, mine, ph.challenge)
	if err != nil {
		return nil, nil, err
	}
	self := h.shown().ID
	if err := readProof(fr, peer, proofKey, transcript("accept", mine, peer.ID, self, ph.eph, myEph.pub)); err != nil {
		return nil, nil, h.refuse(c, err)
	}
	proof, err := AppendFrame(nil, FrameProof, proofMAC(proofKey, transcript("dial", ph.challenge, self, peer.ID, myEph.pub, ph.eph)))
	if err != nil {
		return nil, nil, err
	}
	if err := h.write(c, proof, FrameProof); err != nil {
		return nil, nil, err
	}
	f, err := fr.Next()
	switch {
	case err != nil:
		return nil, nil, err
	case f.Kind == FrameRefuse:
		return nil, nil, &RefusedError{Remote: true, Peer: peer.ID, Reason: string(f.Payload)}
	case f.Kind != FrameWelcome:
		return nil, nil, fmt.Errorf("%w: %s frame where WELCOME was expected", ErrFrame, f.Kind)
	}
	sess, err := newSession(send)
	return fr, sess, err
}

// Accept runs the acceptor's side on c. known maps a claimed id to the
// peer it is in this run; an id it does not know is refused before any
// hashing. It returns the peer, the reader to go on with, and the session
// that opens what the dialer sends; on an error the peer is -1 — the
// dialer proved no identity, so nobody is to blame.
func (h *Handshaker) Accept(c net.Conn, known func(nodes.ID) (int, bool)) (int, *FrameReader, *Session, error) {
	first := h.HelloTimeout
	if first <= 0 {
		first = DefaultHelloTimeout
	}
	if h.Timeout > 0 {
		first = min(first, h.Timeout)
	}
	c.SetDeadline(time.Now().Add(first))
	defer c.SetDeadline(time.Time{})
	fr := h.reader(c)
	ph, err := h.readHello(fr)
	if err != nil {
		return -1, nil, nil, h.refuse(c, err)
	}
	peer := ph.id
	h.deadline(c)
	p, ok := known(peer.ID)
	if !ok {
		return -1, nil, nil, h.refuse(c, &RefusedError{Peer: peer.ID, Reason: "identity " + peer.ID.String() + " is not in this run"})
	}
	if err := h.verify(sourceOf(c.RemoteAddr()), peer); err != nil {
		return -1, nil, nil, h.refuse(c, err)
	}
	if err := h.checkCert(peer, ph.eph, ph.cert); err != nil {
		return -1, nil, nil, h.refuse(c, err)
	}
	hello, mine, myEph, err := h.hello()
	if err != nil {
		return -1, nil, nil, err
	}
	secret, err := h.secret(myEph, ph.eph)
	if err != nil {
		return -1, nil, nil, h.refuse(c, &RefusedError{Peer: peer.ID, Reason: err.Error(), Err: err})
	}
	recv, _, proofKey, err := sessionKeys(secret, ph.challenge, mine)
	if err != nil {
		return -1, nil, nil, err
	}
	self := h.shown().ID
	proof, err := AppendFrame(hello, FrameProof, proofMAC(proofKey, transcript("accept", ph.challenge, self, peer.ID, myEph.pub, ph.eph)))
	if err != nil {
		return -1, nil, nil, err
	}
	if err := h.write(c, proof, FrameHello, FrameProof); err != nil {
		return -1, nil, nil, err
	}
	if err := readProof(fr, peer, proofKey, transcript("dial", mine, peer.ID, self, ph.eph, myEph.pub)); err != nil {
		return -1, nil, nil, h.refuse(c, err)
	}
	welcome, _ := AppendFrame(nil, FrameWelcome, nil)
	if err := h.write(c, welcome, FrameWelcome); err != nil {
		return -1, nil, nil, err
	}
	sess, err := newSession(recv)
	if err != nil {
		return -1, nil, nil, err
	}
	return p, fr, sess, nil
}

// isRefusal reports whether err is a refusal rather than a network failure.
func isRefusal(err error) (*RefusedError, bool) {
	var re *RefusedError
	if errors.As(err, &re) {
		return re, true
	}
	return nil, false
}
