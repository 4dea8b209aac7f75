package nodes

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Message is one point-to-point message. It is a flat value so that runtimes
// can queue millions of them without an allocation each; every algorithm
// documents which fields its kinds use (unused fields stay zero and cost no
// bytes on the wire).
type Message struct {
	// The ranks come first, at multiples of 16 bytes: a rank copied into
	// a message is then stored in the same 16-byte pieces as a copy of
	// the message reads (see the padding below and Rank's).
	Rank Rank // the rank the message is about: ELECTION(r), COORDINATOR(l), PROBE(j,…)
	Aux  Rank // a second rank, e.g. the run's initiator in ring-initiator
	Kind Kind
	A, B int64 // small integers: phase and hop count, term or epoch, a vote flag
	// Body is an opaque payload of at most MaxBodySize bytes, for an
	// algorithm whose messages are another library's own encoding
	// (etcd-raft carries raftpb.Message's protobuf bytes). A string, so a
	// Message stays comparable and a queued one cannot be changed under the
	// runtime.
	Body string
	// The fields take 136 bytes; the padding makes a Message 144, nine
	// 16-byte moves. At 136 the compiler copies the last 16 bytes with a
	// move that overlaps the one before, and the next copy of the copy
	// (a Message passes by value through Env.Send, Machine.Receive and the
	// runtime's queues, several times an event) must wait for both moves
	// to retire: the simulator's event loop ran 17% more messages per CPU
	// second with no overlap (measured at 120 against 128 bytes, before
	// Rank's padding). Blank, so it holds nothing and == ignores it.
	_ [8]byte
}

// The body encoding below is the canonical form of a message: the live
// runtime's frames carry exactly these bytes, and the simulator charges
// EncodedSize bytes per message, so byte counts agree between the runtimes.
//
//	uvarint len(kind name), kind name
//	1 byte  field mask: bit0 Rank.Attr, bit1 Rank.ID, bit2 Aux.Attr, bit3 Aux.ID, bit4 A, bit5 B, bit6 Body
//	per present field, in bit order:
//	  Attr: uvarint
//	  ID:   1 byte n (1..32), then the n significant big-endian bytes (no leading zero)
//	  A, B: zig-zag varint
//	  Body: uvarint n (1..MaxBodySize), then n bytes
//
// Only non-zero fields are present, so the encoding of a message is unique.
const (
	maskRankAttr = 1 << iota
	maskRankID
	maskAuxAttr
	maskAuxID
	maskA
	maskB
	maskBody
	maskAll = 1<<iota - 1
)

// MaxBodySize bounds Message.Body. It leaves room for the rest of a message
// inside the live runtime's largest frame.
const MaxBodySize = 3072

// MaxEncodedSize bounds the encoding of any message.
const MaxEncodedSize = 1 + 32 + 1 + 2*(binary.MaxVarintLen64+1+32) + 2*binary.MaxVarintLen64 + 2 + MaxBodySize

// EncodedSize returns len(m.AppendBinary(nil)) without encoding; for an
// external kind (ExternalKind) it is the size of the body, Message.B.
func (m Message) EncodedSize() int { return EncodedSizeOf(&m) }

// EncodedSizeOf is m.EncodedSize() for a message held in memory, read in
// place: the simulator asks it of every message it sends, and the call of
// a method on a Message value copies all 144 bytes (twice, as compiled)
// first. It reads the kind's precomputed header size and takes a fast path
// for small identities.
func EncodedSizeOf(m *Message) int {
	var n int
	if info := &kinds[m.Kind]; info.hdr != 0 || m.Kind == 0 {
		n = info.hdr
	} else if info.external {
		return int(m.B)
	} else {
		name := m.Kind.String()
		n = uvarintLen(uint64(len(name))) + len(name) + 1
	}
	n += rankSize(&m.Rank) + rankSize(&m.Aux)
	if m.A != 0 {
		n += uvarintLen(zigzag(m.A))
	}
	if m.B != 0 {
		n += uvarintLen(zigzag(m.B))
	}
	if len(m.Body) != 0 {
		n += uvarintLen(uint64(len(m.Body))) + len(m.Body)
	}
	return n
}

func rankSize(r *Rank) int {
	n := 0
	if r.Attr != 0 {
		n += uvarintLen(r.Attr)
	}
	if r.ID[0]|r.ID[1]|r.ID[2] == 0 {
		if w := r.ID[3]; w != 0 {
			n += 1 + (bits.Len64(w)+7)/8
		}
		return n
	}
	return n + 1 + idLen(r.ID)
}

// idLen is the number of significant bytes of a non-zero id.
func idLen(id ID) int {
	for i, w := range id {
		if w != 0 {
			return (3-i)*8 + (64-bits.LeadingZeros64(w)+7)/8
		}
	}
	return 0
}

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }
func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// AppendBinary appends the canonical encoding of m to b.
func (m Message) AppendBinary(b []byte) ([]byte, error) {
	if !m.Kind.Valid() {
		return b, fmt.Errorf("encode message: unregistered kind %d", uint16(m.Kind))
	}
	if m.Kind.IsExternal() {
		return b, fmt.Errorf("encode message: kind %s is an external program's, whose body its algorithm holds", m.Kind)
	}
	if len(m.Body) > MaxBodySize {
		return b, fmt.Errorf("encode message: %s body of %d bytes exceeds %d", m.Kind, len(m.Body), MaxBodySize)
	}
	name := m.Kind.String()
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	var mask byte
	for i, present := range []bool{m.Rank.Attr != 0, m.Rank.ID != ID{}, m.Aux.Attr != 0, m.Aux.ID != ID{}, m.A != 0, m.B != 0, m.Body != ""} {
		if present {
			mask |= 1 << i
		}
	}
	b = append(b, mask)
	b = appendRank(b, m.Rank, mask&maskRankAttr != 0, mask&maskRankID != 0)
	b = appendRank(b, m.Aux, mask&maskAuxAttr != 0, mask&maskAuxID != 0)
	if m.A != 0 {
		b = binary.AppendUvarint(b, zigzag(m.A))
	}
	if m.B != 0 {
		b = binary.AppendUvarint(b, zigzag(m.B))
	}
	if m.Body != "" {
		b = binary.AppendUvarint(b, uint64(len(m.Body)))
		b = append(b, m.Body...)
	}
	return b, nil
}

func appendRank(b []byte, r Rank, attr, id bool) []byte {
	if attr {
		b = binary.AppendUvarint(b, r.Attr)
	}
	if id {
		n := idLen(r.ID)
		full := r.ID.Bytes()
		b = append(b, byte(n))
		b = append(b, full[32-n:]...)
	}
	return b
}

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("malformed message")

// DecodeMessage parses the canonical encoding of one message occupying all of
// b. It bounds every length before use and rejects unknown kinds, unknown
// field bits, non-canonical forms and trailing bytes.
func DecodeMessage(b []byte) (Message, error) {
	var m Message
	d := decoder{b: b}
	nameLen := d.uvarint("kind name length")
	if d.err == nil && (nameLen == 0 || nameLen > 32) {
		d.fail("kind name length %d out of range 1..32", nameLen)
	}
	name := d.bytes(int(nameLen), "kind name")
	if d.err == nil {
		k, ok := KindByName(string(name))
		if !ok {
			d.fail("unknown kind %q", name)
		}
		m.Kind = k
	}
	mask := d.byte("field mask")
	if d.err == nil && mask&^maskAll != 0 {
		d.fail("unknown field bits %#x", mask&^maskAll)
	}
	m.Rank.Attr = d.attr(mask&maskRankAttr != 0, "rank attribute")
	m.Rank.ID = d.id(mask&maskRankID != 0, "rank id")
	m.Aux.Attr = d.attr(mask&maskAuxAttr != 0, "aux attribute")
	m.Aux.ID = d.id(mask&maskAuxID != 0, "aux id")
	m.A = d.int(mask&maskA != 0, "field A")
	m.B = d.int(mask&maskB != 0, "field B")
	m.Body = d.body(mask&maskBody != 0)
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return Message{}, d.err
	}
	return m, nil
}

type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w at byte %d: %s", ErrMalformed, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad varint in %s", what)
		return 0
	}
	if n != uvarintLen(v) {
		d.fail("non-canonical varint in %s", what)
		return 0
	}
	d.b, d.off = d.b[n:], d.off+n
	return v
}

func (d *decoder) bytes(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail("%s: want %d bytes, have %d", what, n, len(d.b))
		return nil
	}
	v := d.b[:n]
	d.b, d.off = d.b[n:], d.off+n
	return v
}

func (d *decoder) byte(what string) byte {
	v := d.bytes(1, what)
	if v == nil {
		return 0
	}
	return v[0]
}

func (d *decoder) attr(present bool, what string) uint64 {
	if !present {
		return 0
	}
	v := d.uvarint(what)
	if d.err == nil && v == 0 {
		d.fail("%s present but zero", what)
	}
	return v
}

func (d *decoder) id(present bool, what string) ID {
	if !present {
		return ID{}
	}
	n := int(d.byte(what + " length"))
	if d.err == nil && (n < 1 || n > 32) {
		d.fail("%s length %d out of range 1..32", what, n)
	}
	raw := d.bytes(n, what)
	if d.err != nil {
		return ID{}
	}
	if raw[0] == 0 {
		d.fail("%s has a leading zero byte", what)
		return ID{}
	}
	var full [32]byte
	copy(full[32-n:], raw)
	return IDFromBytes(full)
}

func (d *decoder) int(present bool, what string) int64 {
	if !present {
		return 0
	}
	v := unzigzag(d.uvarint(what))
	if d.err == nil && v == 0 {
		d.fail("%s present but zero", what)
	}
	return v
}

func (d *decoder) body(present bool) string {
	if !present {
		return ""
	}
	n := d.uvarint("body length")
	if d.err == nil && (n == 0 || n > MaxBodySize) {
		d.fail("body length %d out of range 1..%d", n, MaxBodySize)
	}
	return string(d.bytes(int(n), "body"))
}
