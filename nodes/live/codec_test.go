package live

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
)

var (
	testElection = nodes.RegisterKind("LIVE_TEST_ELECTION", nodes.ElectionClass)
	testNote     = nodes.RegisterKind("LIVE_TEST_NOTE", nodes.MaintenanceClass)
)

// A MSG frame carries exactly the canonical body, so the bytes a live run
// counts are the simulator's EncodedSize (docs/DESIGN.md, "The contract").
func TestMessageFrameCarriesTheCanonicalBody(t *testing.T) {
	for _, m := range []nodes.Message{
		{Kind: testElection},
		{Kind: testElection, Rank: nodes.RankOf(7)},
		{Kind: testNote, Rank: nodes.Rank{Attr: 3, ID: nodes.ID{1, 2, 3, 4}}, Aux: nodes.RankOf(1 << 40), A: -5, B: 1 << 50},
	} {
		b, size, err := AppendMessage([]byte("prefix"), m)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := m.AppendBinary(nil)
		if size != m.EncodedSize() || size != len(body) {
			t.Fatalf("%+v: frame body %d bytes, EncodedSize %d", m, size, m.EncodedSize())
		}
		if !bytes.Equal(b[len("prefix")+4:], body) || b[len("prefix")+2] != Version || FrameKind(b[len("prefix")+3]) != FrameMsg {
			t.Fatalf("%+v: frame %x, body %x", m, b, body)
		}
		fr := NewFrameReader(bytes.NewReader(b[len("prefix"):]))
		f, err := fr.Next()
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Message()
		if err != nil || got != m {
			t.Fatalf("round trip: %+v, %v; want %+v", got, err, m)
		}
		if _, err := fr.Next(); err != io.EOF {
			t.Fatalf("after the last frame: %v, want io.EOF", err)
		}
	}
	if _, _, err := AppendMessage(nil, nodes.Message{Kind: 60000}); err == nil {
		t.Fatal("an unregistered kind was encoded")
	}
}

func frame(length int, version, kind byte, payload []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(length))
	b = append(b, version, kind)
	return append(b, payload...)
}

// Every length is bounded before anything is read or allocated, unknown
// versions and kinds are rejected, and a stream cut short is an error.
func TestFrameReaderRejects(t *testing.T) {
	sig := make([]byte, ProofLen)
	for name, tc := range map[string]struct {
		in   []byte
		want string
	}{
		"length below two":       {frame(1, Version, byte(FrameMsg), nil), "length 1 out of range"},
		"length above MaxFrame":  {binary.BigEndian.AppendUint16(nil, MaxFrame+1), "out of range"},
		"unknown version":        {frame(2+ProofLen, 2, byte(FrameProof), sig), "version 2, this build speaks 3"},
		"v2 signature as proof":  {frame(2+SignatureLen, Version, byte(FrameProof), make([]byte, SignatureLen)), "PROOF payload of 64 bytes"},
		"unknown kind":           {frame(2, Version, 99, nil), "unknown kind 99"},
		"kind zero":              {frame(2, Version, 0, nil), "unknown kind 0"},
		"short proof":            {frame(2+10, Version, byte(FrameProof), sig[:10]), "PROOF payload of 10 bytes"},
		"welcome with payload":   {frame(3, Version, byte(FrameWelcome), []byte{1}), "WELCOME payload of 1 bytes"},
		"empty message":          {frame(2, Version, byte(FrameMsg), nil), "MSG payload of 0 bytes"},
		"oversized message":      {frame(2+nodes.MaxEncodedSize+1, Version, byte(FrameMsg), make([]byte, nodes.MaxEncodedSize+1)), "MSG payload"},
		"hello without identity": {frame(2+ChallengeLen+EphemeralLen+SignatureLen, Version, byte(FrameHello), make([]byte, ChallengeLen+EphemeralLen+SignatureLen)), "HELLO payload"},
		"hello without cert":     {frame(2+ChallengeLen+EphemeralLen, Version, byte(FrameHello), make([]byte, ChallengeLen+EphemeralLen)), "HELLO payload"},
		"sealed without a tag":   {frame(2+TagLen, Version, byte(FrameSealed), make([]byte, TagLen)), "SEALED payload"},
		"refuse not UTF-8":       {frame(4, Version, byte(FrameRefuse), []byte{0xff, 0xfe}), "not UTF-8"},
	} {
		_, err := NewFrameReader(bytes.NewReader(tc.in)).Next()
		if !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrFrame saying %q", name, err, tc.want)
		}
	}
	whole, _ := AppendFrame(nil, FrameProof, sig)
	for cut := 1; cut < len(whole); cut++ {
		if _, err := NewFrameReader(bytes.NewReader(whole[:cut])).Next(); err != io.ErrUnexpectedEOF {
			t.Fatalf("frame cut at %d of %d bytes: %v, want io.ErrUnexpectedEOF", cut, len(whole), err)
		}
	}
	if _, err := AppendFrame(nil, FrameKind(42), nil); !errors.Is(err, ErrFrame) {
		t.Fatalf("AppendFrame of an unknown kind: %v", err)
	}
	if _, err := AppendFrame(nil, FrameProof, sig[:3]); !errors.Is(err, ErrFrame) {
		t.Fatalf("AppendFrame of a short proof: %v", err)
	}
}

// A malformed message body inside a well-formed frame is the codec's
// ErrMalformed (nodes.DecodeMessage), so the node drops the link.
func TestFrameWithBadBody(t *testing.T) {
	b := frame(2+3, Version, byte(FrameMsg), []byte{1, 'Q', 0})
	f, err := NewFrameReader(bytes.NewReader(b)).Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Message(); !errors.Is(err, nodes.ErrMalformed) {
		t.Fatalf("body of an unknown kind: %v", err)
	}
	if _, err := (Frame{Kind: FrameWelcome}).Message(); !errors.Is(err, ErrFrame) {
		t.Fatalf("Message of a WELCOME: %v", err)
	}
}

// FuzzFrameReader: the reader never panics, never accepts a length beyond
// its bounds, and every frame it accepts re-encodes to the bytes it read.
func FuzzFrameReader(f *testing.F) {
	m, _, _ := AppendMessage(nil, nodes.Message{Kind: testElection, Rank: nodes.RankOf(9), A: 3})
	p, _ := AppendFrame(nil, FrameProof, make([]byte, ProofLen))
	w, _ := AppendFrame(nil, FrameWelcome, nil)
	r, _ := AppendFrame(nil, FrameRefuse, []byte("identity: wrong puzzle solution"))
	f.Add(m)
	f.Add(append(append(p, w...), m...))
	f.Add(r)
	f.Add(frame(2+ChallengeLen+EphemeralLen+SignatureLen+4, Version, byte(FrameHello), make([]byte, ChallengeLen+EphemeralLen+SignatureLen+4)))
	sealed, _, _ := (&Session{aead: testAEAD(f)}).AppendMessage(nil, nodes.Message{Kind: testElection, A: 3})
	f.Add(sealed)
	f.Add((&Session{aead: testAEAD(f)}).AppendEpoch(nil, 1<<40))
	f.Fuzz(func(t *testing.T, in []byte) {
		fr := NewFrameReader(bytes.NewReader(in))
		var again []byte
		consumed := 0
		for {
			fm, err := fr.Next()
			if err != nil {
				break
			}
			if lo, hi := payloadBounds(fm.Kind); len(fm.Payload) < lo || len(fm.Payload) > hi {
				t.Fatalf("%s frame with a %d-byte payload accepted", fm.Kind, len(fm.Payload))
			}
			again, err = AppendFrame(again, fm.Kind, fm.Payload)
			if err != nil {
				t.Fatalf("accepted frame does not encode: %v", err)
			}
			consumed = len(again)
			if fm.Kind == FrameMsg {
				if msg, err := fm.Message(); err == nil && msg.EncodedSize() != len(fm.Payload) {
					t.Fatalf("message %+v: EncodedSize %d, body %d bytes", msg, msg.EncodedSize(), len(fm.Payload))
				}
			}
		}
		if !bytes.Equal(again, in[:consumed]) {
			t.Fatalf("frames re-encode to %x, read from %x", again, in[:consumed])
		}
	})
}

// The largest message, a full body included (etcd-raft's protobuf bytes),
// fits a frame and crosses it intact.
func TestLargestMessageFits(t *testing.T) {
	if 2+nodes.MaxEncodedSize > MaxFrame {
		t.Fatalf("a message of %d bytes does not fit a frame of %d", nodes.MaxEncodedSize, MaxFrame)
	}
	m := nodes.Message{Kind: kindPing, A: -1 << 62, B: 1 << 62, Body: strings.Repeat("\xff", nodes.MaxBodySize)}
	b, size, err := AppendMessage(nil, m)
	if err != nil || size != m.EncodedSize() {
		t.Fatalf("size %d, want %d: %v", size, m.EncodedSize(), err)
	}
	f, err := NewFrameReader(bytes.NewReader(b)).Next()
	if err != nil {
		t.Fatal(err)
	}
	back, err := f.Message()
	if err != nil || back != m {
		t.Fatalf("the message came back as %v (%v)", back.Kind, err)
	}
}

// A BODY frame carries an external program's message as the program wrote
// it, with its type and class; the receiver registers the kind by name.
func TestBodyFrameRoundTrip(t *testing.T) {
	k, err := nodes.ExternalKind("cr-ELECTION", nodes.MaintenanceClass)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"type":"cr-ELECTION", "rank":17}`)
	b, size, err := AppendBody(nil, k, body)
	if err != nil || size != len(body) {
		t.Fatalf("AppendBody: size %d, %v", size, err)
	}
	fm, err := NewFrameReader(bytes.NewReader(b)).Next()
	if err != nil {
		t.Fatal(err)
	}
	got, gotBody, err := fm.Body()
	if err != nil || got != k || !bytes.Equal(gotBody, body) {
		t.Fatalf("decoded %v %q %v, want %v %q", got, gotBody, err, k, body)
	}
	// Each process numbers external kinds as it first sees them: hello's
	// registry, which must match the harness's, leaves them out.
	if slices.Contains(KindNames(), "cr-ELECTION") {
		t.Error("hello's registry lists an external kind")
	}
	if _, _, err := AppendBody(nil, testElection, body); err == nil {
		t.Error("a built-in kind went into a BODY frame")
	}
	if _, _, err := AppendBody(nil, k, append([]byte(`{"x":"`), bytes.Repeat([]byte("y"), MaxFrame)...)); err == nil || !strings.Contains(err.Error(), "larger than a live frame carries") {
		t.Errorf("an oversized body: %v", err)
	}
	for _, bad := range [][]byte{
		{0, 0, '{', '}'},            // no type
		{0x81, 0, 'A', 0, '{', '}'}, // a non-canonical type length
		{65, 'A', 0, '{', '}'},      // type length beyond the payload
		{1, 'A', 2, '{', '}'},       // unknown class
		{1, 'A', 0, '[', ']'},       // not an object
		{2, ' ', ' ', 0, '{', '}'},  // not a type name
		{1, 'A', 0, '{'},            // too short a body
	} {
		if _, _, err := (Frame{Kind: FrameBody, Payload: bad}).Body(); err == nil {
			t.Errorf("payload %q accepted", bad)
		}
	}
}

// FuzzBodyFrame: no payload makes the BODY decoder panic, and what it
// accepts encodes back to the same payload.
func FuzzBodyFrame(f *testing.F) {
	k, _ := nodes.ExternalKind("PING", nodes.ElectionClass)
	b, _, _ := AppendBody(nil, k, []byte(`{"type":"PING"}`))
	f.Add(b[4:])
	f.Add([]byte{1, 'A', 1, '{', '}'})
	f.Fuzz(func(t *testing.T, p []byte) {
		k, body, err := (Frame{Kind: FrameBody, Payload: p}).Body()
		if err != nil {
			return
		}
		again, _, err := AppendBody(nil, k, body)
		if err != nil || !bytes.Equal(again[4:], p) {
			t.Fatalf("payload %q decodes to %v %q, which encodes to %q (%v)", p, k, body, again, err)
		}
	})
}
