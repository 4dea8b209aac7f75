package etcdraft

import (
	"fmt"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// logStore is a process's raft.Storage: etcd's MemoryStorage without its
// mutex and call counters. A machine is stepped by one goroutine at a
// time and etcd reads its Storage only inside the machine's calls into
// RawNode, so the lock MemoryStorage takes on every read (LastIndex and
// Term, several times a message) guards nothing here. It holds what
// MemoryStorage holds, the hard state, the initial snapshot and the log
// after it behind a dummy entry at the snapshot's index and term, and
// answers every read as MemoryStorage does, errors and size limits
// included (TestLogStoreAsMemoryStorage).
type logStore struct {
	hardState raftpb.HardState
	snapshot  raftpb.Snapshot
	ents      []raftpb.Entry // ents[0] is the dummy: the snapshot's index and term
}

// newLogStore is a store holding snap and an empty log after it, as
// MemoryStorage.ApplySnapshot leaves a new MemoryStorage.
func newLogStore(snap raftpb.Snapshot) *logStore {
	return &logStore{snapshot: snap, ents: []raftpb.Entry{{Term: snap.Metadata.Term, Index: snap.Metadata.Index}}}
}

func (s *logStore) InitialState() (raftpb.HardState, raftpb.ConfState, error) {
	return s.hardState, s.snapshot.Metadata.ConfState, nil
}

func (s *logStore) Entries(lo, hi, maxSize uint64) ([]raftpb.Entry, error) {
	offset := s.ents[0].Index
	if lo <= offset {
		return nil, raft.ErrCompacted
	}
	if hi > s.lastIndex()+1 {
		panic(fmt.Sprintf("etcd-raft: entries' hi(%d) is out of bound lastindex(%d)", hi, s.lastIndex()))
	}
	if len(s.ents) == 1 {
		return nil, raft.ErrUnavailable
	}
	ents := limitSize(s.ents[lo-offset:hi-offset], maxSize)
	return ents[:len(ents):len(ents)], nil
}

// limitSize is etcd's (util.go): the longest prefix of ents whose
// encodings fit maxSize bytes, and never less than one entry.
func limitSize(ents []raftpb.Entry, maxSize uint64) []raftpb.Entry {
	if len(ents) == 0 {
		return ents
	}
	size := ents[0].Size()
	for limit := 1; limit < len(ents); limit++ {
		size += ents[limit].Size()
		if uint64(size) > maxSize {
			return ents[:limit]
		}
	}
	return ents
}

func (s *logStore) Term(i uint64) (uint64, error) {
	offset := s.ents[0].Index
	if i < offset {
		return 0, raft.ErrCompacted
	}
	if int(i-offset) >= len(s.ents) {
		return 0, raft.ErrUnavailable
	}
	return s.ents[i-offset].Term, nil
}

func (s *logStore) LastIndex() (uint64, error) { return s.lastIndex(), nil }

func (s *logStore) lastIndex() uint64 { return s.ents[0].Index + uint64(len(s.ents)) - 1 }

func (s *logStore) FirstIndex() (uint64, error) { return s.ents[0].Index + 1, nil }

func (s *logStore) Snapshot() (raftpb.Snapshot, error) { return s.snapshot, nil }

// append is MemoryStorage.Append: entries that precede the log's first
// index are dropped, and an entry at an index already held replaces it and
// everything after it (a follower's log overwritten by its leader's).
func (s *logStore) append(entries []raftpb.Entry) {
	if len(entries) == 0 {
		return
	}
	first := s.ents[0].Index + 1
	last := entries[0].Index + uint64(len(entries)) - 1
	if last < first {
		return
	}
	if first > entries[0].Index {
		entries = entries[first-entries[0].Index:]
	}
	offset := entries[0].Index - s.ents[0].Index
	switch {
	case uint64(len(s.ents)) > offset:
		s.ents = append(s.ents[:offset:offset], entries...)
	case uint64(len(s.ents)) == offset:
		s.ents = append(s.ents, entries...)
	default:
		panic(fmt.Sprintf("etcd-raft: missing log entry [last: %d, append at: %d]", s.lastIndex(), entries[0].Index))
	}
}
