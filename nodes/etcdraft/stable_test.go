package etcdraft

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/electbench/electbench/nodes"
)

func sameEntries(a, b []raftpb.Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Term != b[i].Term || a[i].Index != b[i].Index || string(a[i].Data) != string(b[i].Data) {
			return false
		}
	}
	return true
}

// The whole state and the records appended after it replay to the state
// the process reached: the last hard state, and a log whose entries from an
// overwritten index on are the newer ones.
func TestStableReplay(t *testing.T) {
	hs := raftpb.HardState{Term: 7, Vote: 3, Commit: 2}
	ents := []raftpb.Entry{{Term: 2, Index: 2}, {Term: 5, Index: 3, Data: []byte("x")}, {Term: 7, Index: 4}}
	b := encodeStable(nil, hs, ents)
	gotHS, gotEnts, err := decodeStable(b)
	if err != nil || gotHS != hs || !sameEntries(gotEnts, ents) {
		t.Fatalf("whole state: got %+v %+v (%v)", gotHS, gotEnts, err)
	}
	// A new leader's entries overwrite 3 and 4; then only the commit moves.
	b = appendRecords(b, raftpb.HardState{Term: 8, Vote: 1, Commit: 2}, []raftpb.Entry{{Term: 8, Index: 3, Data: []byte("y")}})
	b = appendRecords(b, raftpb.HardState{Term: 8, Vote: 1, Commit: 3}, nil)
	want := []raftpb.Entry{{Term: 2, Index: 2}, {Term: 8, Index: 3, Data: []byte("y")}}
	gotHS, gotEnts, err = decodeStable(b)
	if err != nil || gotHS != (raftpb.HardState{Term: 8, Vote: 1, Commit: 3}) || !sameEntries(gotEnts, want) {
		t.Fatalf("after appends: got %+v %+v (%v)", gotHS, gotEnts, err)
	}
}

// A crash during an append keeps a prefix of it: every prefix of a store
// replays to the state of its whole records, as if the torn record had
// never been written. (Entries before the hard state is what makes every
// such state one the process went through: no commit beyond its log.)
func TestStableTornTail(t *testing.T) {
	b := encodeStable(nil, raftpb.HardState{Term: 2, Vote: 1, Commit: 2}, []raftpb.Entry{{Term: 2, Index: 2}})
	whole := []int{len(b)} // the ends of whole records
	for i := range 5 {
		idx := uint64(3 + i)
		// An event's records, entry first, each a whole record of its own.
		b = appendRecords(b, raftpb.HardState{}, []raftpb.Entry{{Term: 2, Index: idx, Data: []byte("entry")}})
		whole = append(whole, len(b))
		b = appendRecords(b, raftpb.HardState{Term: 2, Vote: 1, Commit: idx - 1}, nil)
		whole = append(whole, len(b))
	}
	for cut := 1; cut <= len(b); cut++ {
		hs, ents, err := decodeStable(b[:cut])
		if err != nil {
			t.Fatalf("a store cut at byte %d of %d: %v", cut, len(b), err)
		}
		end := 1
		for _, w := range whole {
			if w <= cut {
				end = w
			}
		}
		if cut < whole[0] {
			end = cut // inside the first whole state: its records end anywhere
		}
		whs, wents, _ := decodeStable(b[:end])
		if cut >= whole[0] && (hs != whs || !sameEntries(ents, wents)) {
			t.Fatalf("cut at byte %d: %+v %d entries, want the state at byte %d: %+v %d entries", cut, hs, len(ents), end, whs, len(wents))
		}
	}
}

func TestStableRejects(t *testing.T) {
	good := encodeStable(nil, raftpb.HardState{Term: 2, Commit: 2}, []raftpb.Entry{{Term: 2, Index: 2}})
	for name, b := range map[string][]byte{
		"empty":                      nil,
		"other version":              append([]byte{9}, good[1:]...),
		"unknown record":             append(append([]byte{}, good...), 7, 0),
		"bad protobuf":               append(append([]byte{}, good...), recEntry, 2, 0xff, 0xff),
		"overlong length":            append(append([]byte{}, good...), recEntry, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
		"commit past the log":        encodeStable(nil, raftpb.HardState{Term: 2, Commit: 5}, []raftpb.Entry{{Term: 2, Index: 2}}),
		"commit past the snapshot":   encodeStable(nil, raftpb.HardState{Term: 2, Commit: 2}, nil),
		"log not after the snapshot": encodeStable(nil, raftpb.HardState{Term: 2}, []raftpb.Entry{{Term: 1, Index: 1}}),
		"gap in the log":             encodeStable(nil, raftpb.HardState{Term: 2}, []raftpb.Entry{{Term: 2, Index: 2}, {Term: 2, Index: 4}}),
	} {
		if _, _, err := decodeStable(b); !errors.Is(err, errStable) {
			t.Errorf("%s: got %v, want an errStable", name, err)
		}
	}
}

func FuzzDecodeStable(f *testing.F) {
	f.Add(encodeStable(nil, raftpb.HardState{Term: 7, Vote: 3, Commit: 2},
		[]raftpb.Entry{{Term: 2, Index: 2}, {Term: 5, Index: 3, Data: []byte("x")}}))
	f.Add(appendRecords(encodeStable(nil, raftpb.HardState{Term: 7, Vote: 3, Commit: 2},
		[]raftpb.Entry{{Term: 2, Index: 2}, {Term: 5, Index: 3}}), raftpb.HardState{Term: 8, Commit: 2}, []raftpb.Entry{{Term: 8, Index: 3}}))
	f.Add([]byte{stableVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		hs, ents, err := decodeStable(b)
		if err != nil {
			return
		}
		// What decodes encodes back, whole, to the same state.
		hs2, ents2, err := decodeStable(encodeStable(nil, hs, ents))
		if err != nil || hs2 != hs || !sameEntries(ents2, ents) {
			t.Fatalf("re-encoding %x: %v", b, err)
		}
	})
}

// env is a one-process environment for driving a machine by hand: it
// records what the machine sends and keeps its stable bytes.
type env struct {
	peers  []nodes.Peer
	self   int
	sent   []nodes.Message
	stable []byte
	rnd    *rand.Rand
}

func newEnv(n, self int) *env {
	e := &env{self: self, rnd: rand.New(rand.NewPCG(1, 2))}
	for i := range n {
		e.peers = append(e.peers, nodes.Peer{ID: nodes.PeerID(i), Rank: nodes.RankOf(uint64(i + 1))})
	}
	return e
}

func (e *env) Self() nodes.Rank                      { return e.peers[e.self].Rank }
func (e *env) Peers() []nodes.Peer                   { return e.peers }
func (e *env) After(nodes.PeerID) (nodes.Peer, bool) { return nodes.Peer{}, false }
func (e *env) Now() time.Duration                    { return 0 }
func (e *env) Send(_ nodes.PeerID, m nodes.Message)  { e.sent = append(e.sent, m) }
func (e *env) SetTimer(time.Duration, nodes.TimerID) {}
func (e *env) CancelTimer(nodes.TimerID)             {}
func (e *env) Decide(nodes.Rank)                     {}
func (e *env) Rand() *rand.Rand                      { return e.rnd }
func (e *env) LoadStable() []byte                    { return e.stable }
func (e *env) SaveStable(b []byte)                   { e.stable = append(e.stable[:0], b...) }
func (e *env) AppendStable(b []byte)                 { e.stable = append(e.stable, b...) }

func vote(t *testing.T, from, to, term uint64) nodes.Message {
	t.Helper()
	// The candidate's log is everyone's at the start: the initial
	// snapshot, index and term bootIndex.
	pm := raftpb.Message{Type: raftpb.MsgVote, From: from, To: to, Term: term, LogTerm: bootIndex, Index: bootIndex}
	b, err := pm.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return nodes.Message{Kind: kinds[raftpb.MsgVote], A: int64(term), Body: string(b)}
}

// "A restart keeps the node's hard state, as etcd would from its WAL": a
// process that voted for 2 in term 5 and restarts refuses 3 in term 5; a
// process that restarts with nothing kept would grant it (the amnesia that
// elects two leaders in a term).
func TestRestartKeepsVote(t *testing.T) {
	newProc := func() nodes.Machine {
		mk, err := newMachine(nodes.Config{Variant: "plain", N: 3, T: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return mk()
	}
	granted := func(e *env) bool {
		t.Helper()
		last := e.sent[len(e.sent)-1]
		if last.Kind != kinds[raftpb.MsgVoteResp] || last.A != 5 {
			t.Fatalf("answer %s of term %d, want MsgVoteResp of term 5", last.Kind, last.A)
		}
		return last.B == 1
	}
	for _, kept := range []bool{true, false} {
		e := newEnv(3, 0)
		m := newProc()
		m.Start(e)
		m.Receive(e, 1, vote(t, 2, 1, 5))
		if !granted(e) {
			t.Fatal("the first candidate of term 5 was refused")
		}
		if !kept {
			e.stable = nil
		}
		m = newProc() // the crash and the restart
		m.Start(e)
		m.Receive(e, 2, vote(t, 3, 1, 5))
		if granted(e) == kept {
			t.Errorf("stable state kept %v: the second candidate of term 5 granted %v", kept, !kept)
		}
	}
}

// A message that lies about its sender is dropped unanswered.
func TestLyingSenderDropped(t *testing.T) {
	mk, _ := newMachine(nodes.Config{N: 3, T: time.Millisecond})
	e := newEnv(3, 0)
	m := mk()
	m.Start(e)
	sent := len(e.sent)
	m.Receive(e, 2, vote(t, 2, 1, 5)) // says it is 2, came from 3's link
	m.Receive(e, 1, nodes.Message{Kind: kinds[raftpb.MsgVote], Body: "not protobuf \xff"})
	lie := vote(t, 2, 1, 5)
	lie.A = 4 // the envelope's term is not the message's
	m.Receive(e, 1, lie)
	lie = vote(t, 2, 1, 5)
	lie.Kind = kinds[raftpb.MsgPreVote] // nor its kind
	m.Receive(e, 1, lie)
	if len(e.sent) != sent {
		t.Fatalf("answered %v", e.sent[sent:])
	}
	m.Receive(e, 1, vote(t, 2, 1, 5)) // the same message, honest, is answered
	if len(e.sent) != sent+1 {
		t.Fatalf("sent %v to an honest candidate", e.sent[sent:])
	}
}
