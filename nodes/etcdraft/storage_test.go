package etcdraft

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// TestLogStoreAsMemoryStorage holds logStore to etcd's MemoryStorage, the
// reference it replaces: the same appends (overlapping, overwriting,
// stale, with entries of random sizes) and hard states leave both
// answering every read alike, every index and range of the log and every
// size limit, errors included.
func TestLogStoreAsMemoryStorage(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 42))
		snap := raftpb.Snapshot{Metadata: raftpb.SnapshotMetadata{Index: bootIndex, Term: bootIndex,
			ConfState: raftpb.ConfState{Voters: []uint64{1, 2, 3}}}}
		ref := raft.NewMemoryStorage()
		if err := ref.ApplySnapshot(snap); err != nil {
			t.Fatal(err)
		}
		got := newLogStore(snap)
		term := uint64(bootIndex)
		for step := range 40 {
			last, _ := ref.LastIndex()
			// From before the snapshot to just past the end: stale,
			// overwriting and extending appends.
			from := uint64(r.IntN(int(last) + 2))
			ents := make([]raftpb.Entry, r.IntN(4))
			term += uint64(r.IntN(2))
			for i := range ents {
				ents[i] = raftpb.Entry{Index: from + uint64(i), Term: term, Data: make([]byte, r.IntN(300))}
			}
			if len(ents) > 0 && ents[0].Index == 0 {
				ents = ents[1:] // index 0 is no entry's
			}
			if err := ref.Append(ents); err != nil {
				t.Fatal(err)
			}
			got.append(ents)
			hs := raftpb.HardState{Term: term, Vote: uint64(r.IntN(4)), Commit: uint64(r.IntN(int(last) + 1))}
			if err := ref.SetHardState(hs); err != nil {
				t.Fatal(err)
			}
			got.hardState = hs
			sameReads(t, seed, step, ref, got)
		}
	}
}

// sameReads fails unless got answers every read as ref does.
func sameReads(t *testing.T, seed uint64, step int, ref *raft.MemoryStorage, got *logStore) {
	t.Helper()
	same := func(what string, a, b any) {
		t.Helper()
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d step %d: %s: logStore %v, MemoryStorage %v", seed, step, what, b, a)
		}
	}
	rhs, rcs, rerr := ref.InitialState()
	ghs, gcs, gerr := got.InitialState()
	same("InitialState", []any{rhs, rcs, rerr}, []any{ghs, gcs, gerr})
	rf, _ := ref.FirstIndex()
	gf, _ := got.FirstIndex()
	same("FirstIndex", rf, gf)
	rl, _ := ref.LastIndex()
	gl, _ := got.LastIndex()
	same("LastIndex", rl, gl)
	rs, _ := ref.Snapshot()
	gs, _ := got.Snapshot()
	same("Snapshot", rs, gs)
	for i := range rl + 3 {
		rt, rerr := ref.Term(i)
		gt, gerr := got.Term(i)
		same("Term", []any{rt, rerr}, []any{gt, gerr})
	}
	for lo := range rl + 2 {
		for hi := lo; hi <= rl+1; hi++ {
			for _, limit := range []uint64{0, 100, 400, 1024, 1 << 62} {
				re, rerr := ref.Entries(lo, hi, limit)
				ge, gerr := got.Entries(lo, hi, limit)
				same("Entries", []any{re, cap(re), rerr}, []any{ge, cap(ge), gerr})
			}
		}
	}
}
