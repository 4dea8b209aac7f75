package live

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/electbench/electbench/nodes"
)

// Frames after the handshake are authenticated. Each side's HELLO carries
// an ephemeral X25519 key, signed once by its identity (its certificate),
// beside its challenge, and each side's PROOF is a MAC under a key from
// the Diffie-Hellman secret (transcript): the secret is known to the
// holders of the two certified ephemeral keys only — a relay in between
// (a Toxiproxy, or an attacker on the path) sees the keys pass and cannot
// learn it, nor show a key of its own that either identity signed.
// HKDF-SHA256 derives one key per direction from it, bound to both
// challenges, so every link has keys of its own though a node shows one
// ephemeral key in all its handshakes (Handshaker.ephemeral). Every
// message then travels in a SEALED frame: the MSG body followed by a
// 16-byte AES-256-GCM tag over the frame's header and body
// (GMAC: the body stays readable; nothing here is secret), with the frame's
// sequence number on the link as the nonce. A frame injected, altered,
// reordered, replayed or reflected fails its tag: the receiver counts it
// (Stats.Rejected) and closes the link, which the sender redials.

// TagLen is the size of a SEALED frame's tag; EphemeralLen of an X25519
// public key.
const (
	TagLen       = 16
	EphemeralLen = 32
)

// ErrTag is wrapped by the error of a frame whose tag does not verify.
var ErrTag = errors.New("frame authentication failed")

// ephemeral is one side's X25519 key pair: a node's, for all its
// handshakes (Handshaker.ephemeral).
type ephemeral struct {
	priv *ecdh.PrivateKey
	pub  []byte
	cert []byte // the node's identity's signature over pub (certMessage)
}

func newEphemeral() (*ephemeral, error) {
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return &ephemeral{priv: k, pub: k.PublicKey().Bytes()}, nil
}

// secret is the X25519 secret of this key and the peer's ephemeral key
// theirs.
func (e *ephemeral) secret(theirs []byte) ([]byte, error) {
	pub, err := ecdh.X25519().NewPublicKey(theirs)
	if err != nil {
		return nil, fmt.Errorf("%w: the peer's ephemeral key: %w", ErrFrame, err)
	}
	secret, err := e.priv.ECDH(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: the peer's ephemeral key: %w", ErrFrame, err)
	}
	return secret, nil
}

// sessionKeys derives the keys of both directions, and the key both
// sides' PROOFs are MACs under, from the X25519 secret of the two sides'
// ephemeral keys and the dialer's and acceptor's fresh challenges, which
// make them the link's own: a node's two links with a peer share the
// secret (one ephemeral key a node), never the keys. The proof key is
// apart from the session keys (one HKDF output cut in three), so no
// PROOF is a tag a SEALED frame could carry, nor the reverse.
func sessionKeys(secret, dialChallenge, acceptChallenge []byte) (dialToAccept, acceptToDial, proof []byte, err error) {
	salt := append(append([]byte(nil), dialChallenge...), acceptChallenge...)
	keys, err := hkdf.Key(sha256.New, secret, salt, "electbench/live/v3 session keys", 96)
	if err != nil {
		return nil, nil, nil, err
	}
	return keys[:32], keys[32:64], keys[64:], nil
}

// Session authenticates one direction of a link's frames: a sender seals,
// the receiver opens, each counting frames from zero.
type Session struct {
	aead cipher.AEAD
	seq  uint64
	aad  []byte // Open's scratch
}

func newSession(key []byte) (*Session, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Session{aead: aead}, nil
}

func (s *Session) nonce() []byte {
	var n [12]byte
	binary.BigEndian.PutUint64(n[4:], s.seq)
	return n[:]
}

// AppendMessage appends a SEALED frame carrying m to b and returns m's
// body size (m.EncodedSize()).
func (s *Session) AppendMessage(b []byte, m nodes.Message) ([]byte, int, error) {
	start := len(b)
	b, size, err := AppendMessage(b, m)
	if err != nil {
		return b, 0, err
	}
	return s.seal(b, start, FrameSealed), size, nil
}

// AppendBody appends a SEALED-BODY frame carrying an external program's
// message (AppendBody's BODY frame, authenticated) to b and returns the
// body's size.
func (s *Session) AppendBody(b []byte, k nodes.Kind, body []byte) ([]byte, int, error) {
	start := len(b)
	b, size, err := AppendBody(b, k, body)
	if err != nil {
		return b, 0, err
	}
	return s.seal(b, start, FrameSealedBody), size, nil
}

// AppendEpoch appends a sealed EPOCH frame to b: the frames sealed after
// it on this link belong to trial epoch e of a kept cluster.
func (s *Session) AppendEpoch(b []byte, e uint64) []byte {
	start := len(b)
	b = append(b, 0, 0, Version, byte(FrameEpoch))
	b = binary.BigEndian.AppendUint64(b, e)
	return s.seal(b, start, FrameEpoch)
}

// OpenEpoch checks an EPOCH frame as the next frame of the link and
// returns its epoch.
func (s *Session) OpenEpoch(f Frame) (uint64, error) {
	p, err := s.open(f, FrameEpoch)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(p), nil
}

// seal turns the frame at b[start:] into its sealed kind: the length
// counts the tag, the kind byte is sealed's, and the tag over header and
// payload follows.
func (s *Session) seal(b []byte, start int, sealed FrameKind) []byte {
	frame := b[start:]
	binary.BigEndian.PutUint16(frame, uint16(len(frame)-2+TagLen))
	frame[3] = byte(sealed)
	b = s.aead.Seal(b, s.nonce(), nil, frame)
	s.seq++
	return b
}

// Open checks a SEALED frame read with Next, as the next frame of the
// link, and decodes its message. A frame of another kind, or whose tag
// does not verify, wraps ErrTag.
func (s *Session) Open(f Frame) (nodes.Message, error) {
	body, err := s.open(f, FrameSealed)
	if err != nil {
		return nodes.Message{}, err
	}
	return nodes.DecodeMessage(body)
}

// OpenBody checks a SEALED-BODY frame as the next frame of the link and
// decodes its external message (Frame.Body); the body aliases f's payload.
func (s *Session) OpenBody(f Frame) (nodes.Kind, []byte, error) {
	p, err := s.open(f, FrameSealedBody)
	if err != nil {
		return 0, nil, err
	}
	return Frame{Kind: FrameBody, Payload: p}.Body()
}

// open verifies a sealed frame of kind want and returns its plaintext.
func (s *Session) open(f Frame, want FrameKind) ([]byte, error) {
	if f.Kind != want {
		return nil, fmt.Errorf("%w: an unauthenticated %s frame after the handshake", ErrTag, f.Kind)
	}
	if lo, hi := payloadBounds(want); len(f.Payload) < lo || len(f.Payload) > hi {
		return nil, fmt.Errorf("%w: %s payload of %d bytes, want %d..%d", ErrFrame, want, len(f.Payload), lo, hi)
	}
	body := f.Payload[:len(f.Payload)-TagLen]
	var hdr [headerLen + 2]byte
	binary.BigEndian.PutUint16(hdr[:], uint16(2+len(f.Payload)))
	hdr[2], hdr[3] = Version, byte(want)
	s.aad = append(append(s.aad[:0], hdr[:]...), body...)
	if _, err := s.aead.Open(nil, s.nonce(), f.Payload[len(body):], s.aad); err != nil {
		return nil, fmt.Errorf("%w: frame %d of the link", ErrTag, s.seq)
	}
	s.seq++
	return body, nil
}
