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
// handles (the sender's, the receiver's, the ranks of the message being
// handled, the zero rank) or it is kept whole (a body, a rank none of
// those); a whole message's place is reused once it is unpacked.
func TestPackRoundTrip(t *testing.T) {
	s := &sim{full: ranks(8), rxRank: handleNone, rxAux: handleNone}
	outsider := nodes.RankOf(99)
	cases := []struct {
		name     string
		m        nodes.Message
		from, to int32
		whole    bool
	}{
		// First: the message delivered last, to 2, carried 5's rank.
		{"forwarded rank", nodes.Message{Kind: kPing, Rank: s.full[5]}, 2, 3, false},
		{"zero ranks", nodes.Message{Kind: kPing, A: -3, B: 1 << 40}, 1, 2, false},
		{"sender's rank", nodes.Message{Kind: kPing, Rank: s.full[1]}, 1, 2, false},
		{"receiver's rank as aux", nodes.Message{Kind: kPong, Rank: s.full[1], Aux: s.full[2]}, 1, 2, false},
		{"outsider", nodes.Message{Kind: kPing, Rank: outsider}, 1, 2, true},
		{"body", nodes.Message{Kind: kPing, Rank: s.full[1], Body: "raft"}, 1, 2, true},
	}
	var in payload
	s.pack(&in, &nodes.Message{Kind: kPing, Rank: s.full[5]}, 5, 2)
	s.unpack(&in) // process 2 now handles a message carrying 5's rank
	for _, c := range cases {
		var p payload
		s.pack(&p, &c.m, c.from, c.to)
		if whole := p.rank == handleWide; whole != c.whole {
			t.Errorf("%s: kept whole %v, want %v", c.name, whole, c.whole)
		}
		if got := *s.unpack(&p); got != c.m {
			t.Errorf("%s: unpacked %+v, want %+v", c.name, got, c.m)
		}
	}
	if len(s.wide.m) != 1 {
		t.Errorf("the wide store holds %d places for one whole message at a time, want 1", len(s.wide.m))
	}
}
