package nodes

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// ID is a process identity: 256 bits, compared as a big-endian unsigned
// integer. Minted identities use H(public key); simulated ones built from a
// small number carry it in the last word (IDFromUint64).
//
// The array of words (rather than [32]byte) makes the common comparison — the
// first word differs — a single integer compare on the simulator's hot path.
type ID [4]uint64

// IDFromUint64 returns the identity whose numeric value is n.
func IDFromUint64(n uint64) ID { return ID{0, 0, 0, n} }

// IDFromBytes returns the identity whose big-endian value is b (32 bytes).
func IDFromBytes(b [32]byte) ID {
	var id ID
	for i := range id {
		id[i] = binary.BigEndian.Uint64(b[8*i:])
	}
	return id
}

// Bytes returns the big-endian encoding of id.
func (id ID) Bytes() [32]byte {
	var b [32]byte
	for i, w := range id {
		binary.BigEndian.PutUint64(b[8*i:], w)
	}
	return b
}

// Small reports whether id fits in a uint64, and returns that value.
func (id ID) Small() (uint64, bool) {
	return id[3], id[0] == 0 && id[1] == 0 && id[2] == 0
}

// Compare returns -1, 0 or +1 as id is less than, equal to or greater than o.
// Kept small enough that Rank.Compare, which calls it, is inlined on the
// simulator's hot path (an unrolled version is faster alone but, not
// inlined, costs every caller two 40-byte copies).
func (id ID) Compare(o ID) int {
	for i := range id {
		if id[i] != o[i] {
			return btoi(id[i] > o[i])*2 - 1
		}
	}
	return 0
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// String prints small identities as decimal numbers and minted ones as 64
// hexadecimal digits.
func (id ID) String() string {
	if n, ok := id.Small(); ok {
		return strconv.FormatUint(n, 10)
	}
	b := id.Bytes()
	return hex.EncodeToString(b[:])
}

// ParseID reads what String writes: a decimal number or 64 hex digits.
func ParseID(s string) (ID, error) {
	if len(s) == 64 {
		raw, err := hex.DecodeString(s)
		if err != nil {
			return ID{}, fmt.Errorf("identity %q: %w", s, err)
		}
		return IDFromBytes([32]byte(raw)), nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return ID{}, fmt.Errorf("identity %q: want a decimal number or 64 hex digits", s)
	}
	return IDFromUint64(n), nil
}

// Rank orders processes: first the election attribute, then the identity to
// break ties (ALGORITHMS.md, "The reference model"). By default Attr is zero
// for everyone and the rank is the identity itself. "Highest" means greatest.
type Rank struct {
	Attr uint64 // election attribute; compared first (0 when unused)
	ID   ID     // unique identity; breaks ties
	// The fields take 40 bytes; the padding makes a Rank 48, three
	// 16-byte moves that do not overlap. At 40 the compiler copies the
	// last 16 bytes with a move overlapping the one before, and a copy of
	// a rank copied just before (Env.Self into a local, a rank into a
	// message, the message into its queue) waits for the earlier stores to
	// reach the cache: a ten-million ring spent a tenth of its event loop
	// so. Blank, so it holds nothing and == ignores it (Message's padding,
	// the same story).
	_ [8]byte
}

// RankOf returns the rank with no attribute and identity n.
func RankOf(n uint64) Rank { return Rank{ID: IDFromUint64(n)} }

// Compare returns -1, 0 or +1 as r is lower than, equal to or higher than o.
func (r Rank) Compare(o Rank) int {
	if r.Attr != o.Attr {
		if r.Attr < o.Attr {
			return -1
		}
		return 1
	}
	return r.ID.Compare(o.ID)
}

// Less reports whether r ranks below o.
func (r Rank) Less(o Rank) bool { return r.Compare(o) < 0 }

// Cmp is Compare for ranks held in memory, for loops over millions of them
// (the highest of a ring, its shape): it reads both through pointers rather
// than copying 80 bytes, and compares one word when both ranks are built
// from small ids (no attribute, an identity below 2⁶⁴), as simulated ones
// are. Measured on ten million small ranks, finding the highest takes 85 ms
// with Cmp and 200 ms with Compare.
func (r *Rank) Cmp(o *Rank) int {
	if r.Attr|r.ID[0]|r.ID[1]|r.ID[2]|o.Attr|o.ID[0]|o.ID[1]|o.ID[2] == 0 {
		return cmp.Compare(r.ID[3], o.ID[3])
	}
	return r.Compare(*o)
}

// IsZero reports whether r is the zero rank, which no process holds: the
// registry of identities never hands out ID 0 (see workloads).
func (r Rank) IsZero() bool { return r.Attr|r.ID[0]|r.ID[1]|r.ID[2]|r.ID[3] == 0 } // == Rank{} calls memequal

// String prints "id", or "attr/id" when an attribute is set.
func (r Rank) String() string {
	if r.Attr == 0 {
		return r.ID.String()
	}
	return strconv.FormatUint(r.Attr, 10) + "/" + r.ID.String()
}

// ParseRank reads what String writes.
func ParseRank(s string) (Rank, error) {
	var r Rank
	if a, rest, ok := strings.Cut(s, "/"); ok {
		attr, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			return Rank{}, fmt.Errorf("rank %q: bad attribute: %w", s, err)
		}
		r.Attr, s = attr, rest
	}
	id, err := ParseID(s)
	if err != nil {
		return Rank{}, fmt.Errorf("rank: %w", err)
	}
	r.ID = id
	return r, nil
}
