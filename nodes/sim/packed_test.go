package sim

import (
	"testing"
	"unsafe"

	"github.com/electbench/electbench/nodes"
)

// A queued event costs 40 bytes in the slab (PendingBytes, the comments of
// payload and packed.go count on it).
func TestPayloadSize(t *testing.T) {
	if n := unsafe.Sizeof(payload{}); n != 40 {
		t.Fatalf("a payload takes %d bytes, want 40", n)
	}
}

// A packed message unpacks to the message sent, whether its ranks are
// small, by identity (any small rank, the zero rank), or handles (the
// sender's, the receiver's, the ranks of the message being handled) or it
// is kept whole (a body, a rank neither small nor one of those); a whole
// message's place is reused once it is unpacked.
func TestPackRoundTrip(t *testing.T) {
	// Ranks with an attribute (epochs) are not small: they go by handle.
	full := ranks(8)
	for i := range full {
		full[i].Attr = 1
	}
	s := &sim{full: full, rxRank: handleNone, rxAux: handleNone}
	outsider := nodes.Rank{Attr: 1, ID: nodes.IDFromUint64(99)}
	type kept int
	const (
		byID kept = iota
		byHandle
		whole
	)
	cases := []struct {
		name     string
		m        nodes.Message
		from, to int32
		want     kept
	}{
		// First: the message delivered last, to 2, carried 5's rank.
		{"forwarded rank", nodes.Message{Kind: kPing, Rank: s.full[5]}, 2, 3, byHandle},
		{"zero ranks", nodes.Message{Kind: kPing, A: -3, B: 1 << 40}, 1, 2, byID},
		{"small ranks", nodes.Message{Kind: kPing, Rank: nodes.RankOf(99), Aux: nodes.RankOf(1<<32 - 1)}, 1, 2, byID},
		{"identity past 32 bits", nodes.Message{Kind: kPing, Rank: nodes.RankOf(1 << 32)}, 1, 2, whole},
		{"sender's rank", nodes.Message{Kind: kPing, Rank: s.full[1]}, 1, 2, byHandle},
		{"receiver's rank as aux", nodes.Message{Kind: kPong, Rank: s.full[1], Aux: s.full[2]}, 1, 2, byHandle},
		{"outsider", nodes.Message{Kind: kPing, Rank: outsider}, 1, 2, whole},
		{"body", nodes.Message{Kind: kPing, Rank: nodes.RankOf(1), Body: "raft"}, 1, 2, whole},
	}
	var in payload
	s.pack(&in, &nodes.Message{Kind: kPing, Rank: s.full[5]}, 5, 2)
	s.unpack(&in) // process 2 now handles a message carrying 5's rank
	for _, c := range cases {
		var p payload
		s.pack(&p, &c.m, c.from, c.to)
		got := byHandle
		switch {
		case p.ids:
			got = byID
		case p.rank == handleWide:
			got = whole
		}
		if got != c.want {
			t.Errorf("%s: packed as %d, want %d (0 by identity, 1 by handle, 2 whole)", c.name, got, c.want)
		}
		if got := *s.unpack(&p); got != c.m {
			t.Errorf("%s: unpacked %+v, want %+v", c.name, got, c.m)
		}
	}
	if len(s.wide.m) != 1 {
		t.Errorf("the wide store holds %d places for one whole message at a time, want 1", len(s.wide.m))
	}
}
