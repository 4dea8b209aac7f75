package nodes

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"
)

var (
	testKind  = RegisterKind("TEST_ELECTION", ElectionClass)
	testBeat  = RegisterKind("TEST_PING", MaintenanceClass)
	testTimer = RegisterTimer("TEST_T1", ElectionClass)
)

// ALGORITHMS.md: "Processes are compared by their rank (attr, id): first the
// election attribute, then the id to break ties."
func TestRankOrder(t *testing.T) {
	big := Rank{ID: ID{1, 0, 0, 0}}
	for _, tc := range []struct {
		a, b Rank
		want int
	}{
		{RankOf(1), RankOf(2), -1},
		{RankOf(2), RankOf(2), 0},
		{Rank{Attr: 1, ID: IDFromUint64(1)}, RankOf(1 << 60), 1}, // the attribute wins
		{big, RankOf(^uint64(0)), 1},                             // high words compare first
		{Rank{Attr: 2, ID: IDFromUint64(1)}, Rank{Attr: 2, ID: IDFromUint64(3)}, -1},
	} {
		if got := tc.a.Compare(tc.b); got != tc.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := tc.b.Compare(tc.a); got != -tc.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}

func TestRankText(t *testing.T) {
	for _, r := range []Rank{RankOf(7), {Attr: 3, ID: IDFromUint64(9)}, {ID: ID{0xdead, 1, 2, 3}}} {
		back, err := ParseRank(r.String())
		if err != nil || back != r {
			t.Errorf("ParseRank(%q) = %v, %v", r.String(), back, err)
		}
	}
	for _, bad := range []string{"", "x", "1/", "a/1", strings.Repeat("z", 64)} {
		if _, err := ParseRank(bad); err == nil {
			t.Errorf("ParseRank(%q) accepted", bad)
		}
	}
	var b [32]byte
	b[0], b[31] = 0x80, 1
	if id := IDFromBytes(b); id.Bytes() != b || id.Compare(IDFromUint64(^uint64(0))) != 1 {
		t.Errorf("IDFromBytes round trip: %v", id)
	}
}

// A Message and a Rank are copied by value several times an event; at a
// multiple of 16 bytes their copies do not overlap (see their padding),
// and a message's ranks begin on 16-byte boundaries within it.
func TestMessageSize(t *testing.T) {
	if got := unsafe.Sizeof(Message{}); got != 144 {
		t.Errorf("Message is %d bytes, want 144", got)
	}
	if got := unsafe.Sizeof(Rank{}); got != 48 {
		t.Errorf("Rank is %d bytes, want 48", got)
	}
	var m Message
	if r, a := unsafe.Offsetof(m.Rank), unsafe.Offsetof(m.Aux); r%16 != 0 || a%16 != 0 {
		t.Errorf("Message.Rank at %d, Aux at %d: want multiples of 16", r, a)
	}
}

func TestMessageRoundTrip(t *testing.T) {
	for _, m := range []Message{
		{Kind: testKind},
		{Kind: testKind, Rank: RankOf(5)},
		{Kind: testKind, Rank: Rank{Attr: 1 << 40, ID: ID{1, 2, 3, 4}}, Aux: RankOf(300), A: -7, B: 1 << 50},
		{Kind: testBeat, A: 1, B: -1},
		{Kind: testKind, A: 3, Body: "\x08\x05\x10\x02"},
		{Kind: testBeat, Body: strings.Repeat("b", MaxBodySize)},
	} {
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != m.EncodedSize() {
			t.Errorf("%+v: EncodedSize %d, encoded %d bytes", m, m.EncodedSize(), len(b))
		}
		back, err := DecodeMessage(b)
		if err != nil || back != m {
			t.Errorf("round trip of %+v: %+v, %v", m, back, err)
		}
	}
	if _, err := (Message{}).AppendBinary(nil); err == nil {
		t.Error("encoded an unregistered kind")
	}
	if _, err := (Message{Kind: testKind, Body: strings.Repeat("b", MaxBodySize+1)}).AppendBinary(nil); err == nil {
		t.Error("encoded a body over MaxBodySize")
	}
}

func TestDecodeRejects(t *testing.T) {
	good, _ := Message{Kind: testKind, Rank: RankOf(5), A: 3}.AppendBinary(nil)
	for name, tc := range map[string]struct {
		b    []byte
		want string
	}{
		"empty":          {nil, "bad varint"},
		"long name":      {append([]byte{33}, make([]byte, 40)...), "out of range"},
		"unknown kind":   {append([]byte{4}, "NOPE\x00"...), "unknown kind"},
		"truncated":      {good[:len(good)-1], "bad varint"},
		"trailing":       {append(append([]byte{}, good...), 0), "trailing"},
		"unknown bits":   {append(append([]byte{13}, "TEST_ELECTION"...), 0x80), "unknown field bits"},
		"empty body":     {append(append([]byte{13}, "TEST_ELECTION"...), 0x40, 0), "body length 0"},
		"huge body":      {append(append([]byte{13}, "TEST_ELECTION"...), 0x40, 0x81, 0x20), "body length 4097"},
		"short body":     {append(append([]byte{13}, "TEST_ELECTION"...), 0x40, 3, 1), "want 3 bytes"},
		"zero id length": {append(append([]byte{13}, "TEST_ELECTION"...), 0x02, 0), "out of range"},
		"leading zero":   {append(append([]byte{13}, "TEST_ELECTION"...), 0x02, 2, 0, 1), "leading zero"},
		"zero int":       {append(append([]byte{13}, "TEST_ELECTION"...), 0x10, 0), "present but zero"},
		"overlong var":   {append(append([]byte{13}, "TEST_ELECTION"...), 0x10, 0x82, 0x00), "non-canonical"},
	} {
		_, err := DecodeMessage(tc.b)
		if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrMalformed mentioning %q", name, err, tc.want)
		}
	}
}

// EncodedSize counts exactly the bytes AppendBinary writes, for messages
// whose fields are zero or not, small or at the edges of a varint or of a
// byte (the simulator charges EncodedSize for every message it sends).
func TestEncodedSizeMatchesEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	word := func() uint64 {
		switch r.IntN(5) {
		case 0:
			return 0
		case 1:
			return uint64(1)<<r.IntN(64) - uint64(r.IntN(2)) // a power of two, or one below
		case 2:
			return ^uint64(0)
		}
		return r.Uint64() >> r.IntN(64)
	}
	rank := func() Rank {
		if r.IntN(2) == 0 {
			return Rank{Attr: word(), ID: IDFromUint64(word())}
		}
		return Rank{Attr: word(), ID: ID{word(), word(), word(), word()}}
	}
	for range 100_000 {
		m := Message{Kind: []Kind{testKind, testBeat}[r.IntN(2)], Rank: rank(), Aux: rank(), A: int64(word()), B: int64(word())}
		if r.IntN(8) == 0 {
			m.Body = strings.Repeat("x", 1+r.IntN(300))
		}
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.EncodedSize() != len(b) {
			t.Fatalf("%+v: EncodedSize %d, encoded %d bytes", m, m.EncodedSize(), len(b))
		}
	}
}

// FuzzDecodeMessage: the decoder never panics, and whatever it accepts is
// canonical — it re-encodes to the same bytes.
func FuzzDecodeMessage(f *testing.F) {
	for _, m := range []Message{{Kind: testKind, Rank: RankOf(5)}, {Kind: testBeat, Aux: Rank{Attr: 2, ID: ID{9, 0, 0, 1}}, B: -4}, {Kind: testKind, A: 2, Body: "\x08\x05"}} {
		b, _ := m.AppendBinary(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMessage(b)
		if err != nil {
			return
		}
		again, err := m.AppendBinary(nil)
		if err != nil || string(again) != string(b) || m.EncodedSize() != len(b) {
			t.Fatalf("decoded %+v from %x but it encodes to %x (%v)", m, b, again, err)
		}
	})
}

func TestKindsAndTimers(t *testing.T) {
	if RegisterKind("TEST_ELECTION", ElectionClass) != testKind {
		t.Error("registering a name twice gave two kinds")
	}
	if !testKind.IsElection() || testBeat.IsElection() || Kind(0).Valid() {
		t.Error("kind classes are wrong")
	}
	if k, ok := KindByName("TEST_PING"); !ok || k != testBeat || k.String() != "TEST_PING" {
		t.Error("KindByName")
	}
	if k := RegisterKind("TestMsgVote", ElectionClass); k.String() != "TestMsgVote" || !k.IsElection() {
		t.Error("a kind in another library's spelling (etcd's MsgVote)")
	}
	if testTimer.String() != "TEST_T1" || RegisterTimer("TEST_T1", ElectionClass) != testTimer {
		t.Error("timers")
	}
	tick := RegisterTimer("TEST_TICK", MaintenanceClass)
	if !testTimer.IsElection() || tick.IsElection() || TimerID(0).IsElection() || TimerID(NumTimers()).IsElection() {
		t.Error("timer classes are wrong")
	}
	for _, bad := range []func(){
		func() { RegisterKind("1ST", ElectionClass) },
		func() { RegisterKind("Msg-Vote", ElectionClass) },
		func() { RegisterKind("TEST_ELECTION", MaintenanceClass) },
		func() { RegisterTimer("", ElectionClass) },
		func() { RegisterTimer("TEST_T1", MaintenanceClass) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("bad registration did not panic")
				}
			}()
			bad()
		}()
	}
}

func TestParseDuration(t *testing.T) {
	T, D := 2*time.Millisecond, 5*time.Millisecond
	for in, want := range map[string]time.Duration{
		"2T": 4 * time.Millisecond, "T": T, "0.5T": time.Millisecond, "5ms": 5 * time.Millisecond, " 1s ": time.Second,
		"2D": 10 * time.Millisecond, "D": D, "0.2D": time.Millisecond,
	} {
		if got, err := ParseDuration(in, T, D); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "xT", "NaNT", "2", "fast", "1e20T", "xD", "1e20D", "2TD"} {
		if _, err := ParseDuration(bad, T, D); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
	// Where no latency model gives a bound, D is refused, never guessed.
	if _, err := ParseDuration("2D", T, 0); err == nil || !strings.Contains(err.Error(), "delay bound D is not known") {
		t.Errorf("ParseDuration(2D) without a bound: %v", err)
	}
}

// A Config without D reads "2D" as 2T: the reference model's D = T.
func TestConfigDurationD(t *testing.T) {
	c := Config{T: time.Millisecond, Params: Params{"a": "2D"}}
	if d, err := c.Duration("a", "1T"); err != nil || d != 2*time.Millisecond {
		t.Errorf("D unset: %v, %v; want 2ms", d, err)
	}
	c.D = 5 * time.Millisecond
	if d, err := c.Duration("a", "1T"); err != nil || d != 10*time.Millisecond {
		t.Errorf("D = 5ms: %v, %v; want 10ms", d, err)
	}
	if d, err := c.Duration("b", "3D"); err != nil || d != 15*time.Millisecond {
		t.Errorf("default 3D: %v, %v; want 15ms", d, err)
	}
}

func TestLookup(t *testing.T) {
	Register(Algorithm{Name: "test-algo", Topology: RingUni, Variants: []Variant{{Name: "a"}, {Name: "b"}},
		Params: []Param{{Name: "t1", Default: "2T"}},
		New:    func(Config) (func() Machine, error) { return nil, nil }})
	if a, v, err := Lookup("test-algo"); err != nil || a.Name != "test-algo" || v != "a" {
		t.Errorf("default variant: %v %q %v", a, v, err)
	}
	if _, v, err := Lookup("test-algo/b"); err != nil || v != "b" {
		t.Errorf("named variant: %q %v", v, err)
	}
	if _, _, err := Lookup("test-algo/c"); err == nil || !strings.Contains(err.Error(), `no variant "c" (known: a, b)`) {
		t.Errorf("unknown variant: %v", err)
	}
	if _, _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "test-algo") {
		t.Errorf("unknown algorithm should list the known ones: %v", err)
	}
	a, _, _ := Lookup("test-algo")
	if err := a.CheckParams(Params{"t2": "1"}); err == nil || !strings.Contains(err.Error(), `no parameter "t2" (known: t1)`) {
		t.Errorf("CheckParams: %v", err)
	}
}

func TestHasDefaultParams(t *testing.T) {
	a := &Algorithm{Params: []Param{{Name: "t1", Default: "2T"}, {Name: "mode", Default: "fast"}}}
	T := time.Millisecond
	for p, want := range map[string]bool{"": true, "t1=2T": true, "t1=2.0T": true, "t1=2ms": true, "t1=3T": false, "mode=fast": true, "mode=slow": false, "t1=2D": true} {
		params := Params{}
		if k, v, ok := strings.Cut(p, "="); ok {
			params[k] = v
		}
		if got := a.HasDefaultParams(params, T, T); got != want {
			t.Errorf("HasDefaultParams(%q) = %v, want %v", p, got, want)
		}
	}
	// Under a latency whose bound exceeds its mean, 2D is not 2T.
	if a.HasDefaultParams(Params{"t1": "2D"}, T, 5*T) {
		t.Error("HasDefaultParams(t1=2D) with D = 5T: want false")
	}
}

// ParseDuration never panics, and a multiple of D reads as the same
// multiple of T would with T = D.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"2D", "0.5T", "5ms", "D", "-1D", "1e9D", "NaND", "2TD", " 3D "} {
		f.Add(s, int64(time.Millisecond), int64(5*time.Millisecond))
	}
	f.Fuzz(func(t *testing.T, s string, T, D int64) {
		got, err := ParseDuration(s, time.Duration(T), time.Duration(D))
		num, isD := strings.CutSuffix(strings.TrimSpace(s), "D")
		if !isD {
			return
		}
		if D <= 0 {
			if err == nil {
				t.Fatalf("ParseDuration(%q) with no bound D = %v, want an error", s, got)
			}
			return
		}
		want, werr := ParseDuration(num+"T", time.Duration(D), 0)
		if (err == nil) != (werr == nil) || got != want {
			t.Fatalf("ParseDuration(%q, D=%d) = %v, %v; as T: %v, %v", s, D, got, err, want, werr)
		}
	})
}

// TestIDCompareMatchesBytes: ID.Compare orders as the big-endian bytes do,
// for ids that differ in any word, or not at all.
func TestIDCompareMatchesBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() uint64 { return []uint64{0, 1, ^uint64(0), r.Uint64()}[r.IntN(4)] }
	for range 100_000 {
		a := ID{word(), word(), word(), word()}
		b := a
		if r.IntN(8) > 0 {
			b[r.IntN(4)] = word()
		}
		ab, bb := a.Bytes(), b.Bytes()
		if got, want := a.Compare(b), bytes.Compare(ab[:], bb[:]); got != want {
			t.Fatalf("%v.Compare(%v) = %d, want %d", a, b, got, want)
		}
	}
}

// TestRankCmpMatchesCompare: Cmp, the fast path for ranks in memory, orders
// exactly as Compare does, for small ranks and for ranks with an attribute
// or a minted identity in any word; IsZero, which ORs the words, is == the
// zero rank.
func TestRankCmpMatchesCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	word := func() uint64 { return []uint64{0, 0, 1, 2, ^uint64(0), r.Uint64()}[r.IntN(6)] }
	rank := func() Rank {
		if r.IntN(2) == 0 {
			return RankOf(word())
		}
		return Rank{Attr: word(), ID: ID{word(), word(), word(), word()}}
	}
	for range 200_000 {
		a, b := rank(), rank()
		if r.IntN(4) == 0 {
			b = a
			if r.IntN(2) == 0 {
				b.ID[3] = word()
			}
		}
		if got, want := a.Cmp(&b), a.Compare(b); got != want {
			t.Fatalf("%v.Cmp(%v) = %d, want %d", a, b, got, want)
		}
		if a.IsZero() != (a == Rank{}) {
			t.Fatalf("%v.IsZero() = %v", a, a.IsZero())
		}
	}
}

// Linked, Degree and PeersOf describe one topology: a process's peers other
// than itself are exactly the processes it is linked to, Degree of them,
// and a complete graph lists every process in ascending rank order.
func TestTopologyLinks(t *testing.T) {
	for _, topo := range []Topology{RingUni, RingBi, Complete} {
		for n := 2; n <= 7; n++ {
			ranks := make([]Rank, n)
			for i := range ranks {
				ranks[i] = RankOf(uint64((2*n-3-i)%n + 1)) // distinct, not in position order
			}
			for p := range n {
				linked := map[int]bool{}
				for q := range n {
					if topo.Linked(p, q, n) {
						linked[q] = true
					}
				}
				if len(linked) != topo.Degree(n) {
					t.Fatalf("%s n=%d p=%d: linked to %v, Degree %d", topo, n, p, linked, topo.Degree(n))
				}
				peers := PeersOf(topo, ranks, p)
				listed := map[int]bool{}
				for i, q := range peers {
					if q.Rank != ranks[q.ID] {
						t.Fatalf("%s n=%d p=%d: peer %d listed with rank %s, has %s", topo, n, p, q.ID, q.Rank, ranks[q.ID])
					}
					if topo == Complete && i > 0 && peers[i-1].Rank.Compare(q.Rank) >= 0 {
						t.Fatalf("%s n=%d: peers not in ascending rank order: %v", topo, n, peers)
					}
					if int(q.ID) != p {
						listed[int(q.ID)] = true
					}
				}
				if len(listed) != len(linked) {
					t.Fatalf("%s n=%d p=%d: peers %v, linked %v", topo, n, p, listed, linked)
				}
				for q := range linked {
					if !listed[q] {
						t.Fatalf("%s n=%d p=%d: linked to %d, not among the peers %v", topo, n, p, q, peers)
					}
				}
			}
		}
	}
	if RingBi.Degree(2) != 1 || RingBi.Degree(3) != 2 || Complete.Degree(1) != 0 || RingUni.Degree(128) != 1 || Complete.Degree(128) != 127 {
		t.Fatal("Degree: wrong count for a small case")
	}
}

// EncodedSizeOf is the length of the encoding, on its fast paths (a
// registered kind with at most a small identity) and off them.
func TestEncodedSizeOf(t *testing.T) {
	var ms []Message
	for _, w := range []uint64{0, 1, 255, 256, 1<<32 - 1, 1 << 32, 1<<63 + 5} {
		ms = append(ms,
			Message{Kind: testKind, Rank: RankOf(w)},
			Message{Kind: testKind, Rank: RankOf(w), A: 1},
			Message{Kind: testKind, Rank: RankOf(w), B: -1},
			Message{Kind: testKind, Rank: RankOf(w), Aux: RankOf(w + 1)},
			Message{Kind: testKind, Rank: Rank{Attr: w + 1, ID: IDFromUint64(w)}},
			Message{Kind: testBeat, Rank: Rank{ID: ID{w, 0, 0, 3}}},
			Message{Kind: testBeat, Rank: RankOf(w), Body: "\x01"},
		)
	}
	for _, m := range ms {
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := EncodedSizeOf(&m); got != len(b) || m.EncodedSize() != len(b) {
			t.Errorf("%+v: EncodedSizeOf %d, encoding %d bytes", m, got, len(b))
		}
	}
}
