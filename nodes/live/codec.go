package live

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// The frame, on the wire:
//
//	2 bytes  L, big-endian: the length of what follows, 2 ≤ L ≤ MaxFrame
//	1 byte   version (Version)
//	1 byte   kind (FrameKind)
//	L−2      payload, whose size each kind bounds:
//	  HELLO    32-byte challenge, 32-byte X25519 ephemeral key, its 64-byte
//	           certificate (the identity's Ed25519 signature, certMessage),
//	           then the identity file (pow.Encode), ≤ pow.MaxFileSize
//	  PROOF    32-byte HMAC-SHA256 of the transcript (handshake.go)
//	  WELCOME  empty
//	  REFUSE   reason, UTF-8, ≤ MaxReason bytes
//	  MSG      nodes.Message's canonical body, 1..nodes.MaxEncodedSize bytes
//	  SEALED   a MSG body, then its TagLen-byte tag (session.go): the only
//	           frame a link carries after its handshake
//	  BODY     an external program's message (nodes/external): uvarint
//	           len(type), its type (nodes.ExternalKind's names), 1 byte
//	           class (0 election, 1 maintenance), then the body as the
//	           program wrote it, ≥ 2 bytes; at most MaxFrame−2 in all
//	  SEALED-BODY  a BODY payload, then its TagLen-byte tag: an external
//	           program's message on a link after its handshake
//
// A reader checks L before it reads the payload, into a buffer of MaxFrame
// bytes allocated once per connection, so no input makes it allocate more.
const (
	// Version 2: HELLO carries an ephemeral key; messages travel SEALED.
	// 3: HELLO carries the ephemeral key's certificate, signed once a node,
	// and PROOF is a MAC under a key from the X25519 secret, not a
	// signature a link.
	Version      = 3
	ChallengeLen = 32
	SignatureLen = 64
	ProofLen     = sha256.Size // a PROOF's MAC
	MaxReason    = 256
	headerLen    = 2
	// MaxFrame bounds L: the largest payload (HELLO) plus version and kind.
	MaxFrame = 2 + ChallengeLen + EphemeralLen + SignatureLen + pow.MaxFileSize
)

// FrameKind is the type of a frame.
type FrameKind uint8

const (
	FrameHello      FrameKind = iota + 1 // handshake: challenge and identity
	FrameProof                           // handshake: MAC over the peer's challenge
	FrameWelcome                         // handshake: the acceptor admits the dialer
	FrameRefuse                          // handshake: the identity was refused, with why
	FrameMsg                             // one algorithm message
	FrameSealed                          // one algorithm message, authenticated
	FrameBody                            // one message of an external program, with its body
	FrameSealedBody                      // one message of an external program, authenticated
	// FrameEpoch, always sealed, says which trial of a kept cluster the
	// frames after it on the link belong to (Session.AppendEpoch): a
	// message still in flight when its trial ended is recognised as
	// stale in the next one, however late it arrives.
	FrameEpoch
	numFrameKinds
)

// EpochLen is the size of an EPOCH frame's plaintext: the trial's epoch.
const EpochLen = 8

var frameNames = [...]string{"INVALID", "HELLO", "PROOF", "WELCOME", "REFUSE", "MSG", "SEALED", "BODY", "SEALED-BODY", "EPOCH"}

func (k FrameKind) String() string {
	if k < numFrameKinds {
		return frameNames[k]
	}
	return fmt.Sprintf("FrameKind(%d)", uint8(k))
}

// Valid reports whether k is a known frame kind.
func (k FrameKind) Valid() bool { return k > 0 && k < numFrameKinds }

// ErrFrame is wrapped by every error about a malformed frame.
var ErrFrame = errors.New("malformed frame")

// payloadBounds returns the least and greatest payload size of kind k.
func payloadBounds(k FrameKind) (lo, hi int) {
	switch k {
	case FrameHello:
		return ChallengeLen + EphemeralLen + SignatureLen + 1, ChallengeLen + EphemeralLen + SignatureLen + pow.MaxFileSize
	case FrameProof:
		return ProofLen, ProofLen
	case FrameWelcome:
		return 0, 0
	case FrameRefuse:
		return 0, MaxReason
	case FrameMsg:
		return 1, nodes.MaxEncodedSize
	case FrameSealed:
		return 1 + TagLen, nodes.MaxEncodedSize + TagLen
	case FrameBody:
		return 4, MaxFrame - 2 - TagLen
	case FrameSealedBody:
		return 4 + TagLen, MaxFrame - 2
	case FrameEpoch:
		return EpochLen + TagLen, EpochLen + TagLen
	}
	return 0, -1
}

// checkPayload validates a payload's size and, for REFUSE, its encoding.
func checkPayload(k FrameKind, p []byte) error {
	if !k.Valid() {
		return fmt.Errorf("%w: unknown kind %d", ErrFrame, uint8(k))
	}
	lo, hi := payloadBounds(k)
	if len(p) < lo || len(p) > hi {
		return fmt.Errorf("%w: %s payload of %d bytes, want %d..%d", ErrFrame, k, len(p), lo, hi)
	}
	if k == FrameRefuse && !utf8.Valid(p) {
		return fmt.Errorf("%w: REFUSE reason is not UTF-8", ErrFrame)
	}
	return nil
}

// AppendFrame appends one frame of kind k with payload p to b.
func AppendFrame(b []byte, k FrameKind, p []byte) ([]byte, error) {
	if err := checkPayload(k, p); err != nil {
		return b, err
	}
	b = binary.BigEndian.AppendUint16(b, uint16(2+len(p)))
	b = append(b, Version, byte(k))
	return append(b, p...), nil
}

// AppendMessage appends a MSG frame carrying m's canonical body to b and
// returns the body's size, which equals m.EncodedSize().
func AppendMessage(b []byte, m nodes.Message) ([]byte, int, error) {
	start := len(b)
	b = append(b, 0, 0, Version, byte(FrameMsg))
	b, err := m.AppendBinary(b)
	if err != nil {
		return b[:start], 0, err
	}
	size := len(b) - start - headerLen - 2
	binary.BigEndian.PutUint16(b[start:], uint16(2+size))
	return b, size, nil
}

// AppendBody appends a BODY frame carrying a message of the external kind
// k whose body is body, and returns the body's size (what the message is
// charged, as in the simulator).
func AppendBody(b []byte, k nodes.Kind, body []byte) ([]byte, int, error) {
	if !k.IsExternal() {
		return b, 0, fmt.Errorf("encode body: kind %s is not an external program's", k)
	}
	name := k.String()
	class := byte(0)
	if !k.IsElection() {
		class = 1
	}
	p := make([]byte, 0, 2+len(name)+len(body))
	p = binary.AppendUvarint(p, uint64(len(name)))
	p = append(p, name...)
	p = append(p, class)
	p = append(p, body...)
	// Room for the tag a link's session adds (Session.AppendBody).
	if len(p) > MaxFrame-2-TagLen {
		return b, 0, fmt.Errorf("a %s message of %d bytes is larger than a live frame carries (%d bytes in all)", name, len(body), MaxFrame-2-TagLen)
	}
	b, err := AppendFrame(b, FrameBody, p)
	return b, len(body), err
}

// Body decodes a BODY frame: the message's external kind, registered on
// first sight, and its body (aliasing the frame's payload).
func (f Frame) Body() (nodes.Kind, []byte, error) {
	if f.Kind != FrameBody {
		return 0, nil, fmt.Errorf("%w: %s frame where BODY was expected", ErrFrame, f.Kind)
	}
	p := f.Payload
	if len(p) > MaxFrame-2-TagLen {
		return 0, nil, fmt.Errorf("%w: BODY of %d bytes, more than %d", ErrFrame, len(p), MaxFrame-2-TagLen)
	}
	l, n := binary.Uvarint(p)
	if n <= 0 || n != len(binary.AppendUvarint(nil, l)) || l == 0 || l > 64 || uint64(len(p)-n) < l+1 {
		return 0, nil, fmt.Errorf("%w: BODY type length", ErrFrame)
	}
	name, rest := p[n:n+int(l)], p[n+int(l):]
	class := nodes.ElectionClass
	switch rest[0] {
	case 0:
	case 1:
		class = nodes.MaintenanceClass
	default:
		return 0, nil, fmt.Errorf("%w: BODY class %d", ErrFrame, rest[0])
	}
	body := rest[1:]
	if len(body) < 2 || body[0] != '{' {
		return 0, nil, fmt.Errorf("%w: BODY is not a JSON object", ErrFrame)
	}
	k, err := nodes.ExternalKind(string(name), class)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %v", ErrFrame, err)
	}
	return k, body, nil
}

// Frame is one decoded frame. Its payload aliases the reader's buffer and is
// valid until the next call to Next.
type Frame struct {
	Kind    FrameKind
	Payload []byte
}

// Message decodes a MSG frame's body.
func (f Frame) Message() (nodes.Message, error) {
	if f.Kind != FrameMsg {
		return nodes.Message{}, fmt.Errorf("%w: %s frame where MSG was expected", ErrFrame, f.Kind)
	}
	return nodes.DecodeMessage(f.Payload)
}

// FrameReader reads frames from a stream.
type FrameReader struct {
	r   *bufio.Reader
	buf []byte
	// OnFrame, when set, is told the kind of every well-formed frame read.
	OnFrame func(FrameKind)
}

// NewFrameReader returns a reader of the frames in r.
func NewFrameReader(r io.Reader) *FrameReader {
	return &FrameReader{r: bufio.NewReaderSize(r, 4096), buf: make([]byte, MaxFrame)}
}

// Next reads one frame. At a clean end of stream it returns io.EOF; a stream
// cut inside a frame is io.ErrUnexpectedEOF; anything malformed wraps
// ErrFrame, after which the stream cannot be resynchronised and the
// connection must be dropped.
func (fr *FrameReader) Next() (Frame, error) {
	var hdr [headerLen + 2]byte
	if _, err := io.ReadFull(fr.r, hdr[:headerLen]); err != nil {
		return Frame{}, err
	}
	n := int(binary.BigEndian.Uint16(hdr[:]))
	if n < 2 || n > MaxFrame {
		return Frame{}, fmt.Errorf("%w: length %d out of range 2..%d", ErrFrame, n, MaxFrame)
	}
	if _, err := io.ReadFull(fr.r, hdr[headerLen:]); err != nil {
		return Frame{}, noEOF(err)
	}
	if hdr[2] != Version {
		return Frame{}, fmt.Errorf("%w: version %d, this build speaks %d", ErrFrame, hdr[2], Version)
	}
	k := FrameKind(hdr[3])
	if !k.Valid() {
		return Frame{}, fmt.Errorf("%w: unknown kind %d", ErrFrame, hdr[3])
	}
	// Bound the payload by its kind before reading it.
	p := n - 2
	if lo, hi := payloadBounds(k); p < lo || p > hi {
		return Frame{}, fmt.Errorf("%w: %s payload of %d bytes, want %d..%d", ErrFrame, k, p, lo, hi)
	}
	payload := fr.buf[:p]
	if _, err := io.ReadFull(fr.r, payload); err != nil {
		return Frame{}, noEOF(err)
	}
	if k == FrameRefuse && !utf8.Valid(payload) {
		return Frame{}, fmt.Errorf("%w: REFUSE reason is not UTF-8", ErrFrame)
	}
	if fr.OnFrame != nil {
		fr.OnFrame(k)
	}
	return Frame{Kind: k, Payload: payload}, nil
}

// noEOF reports a stream that ends inside a frame as unexpected.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
