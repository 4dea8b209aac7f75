package hraft

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/electbench/electbench/nodes"
)

// stableStore is raft.StableStore over a nodes.StableStore: the library's
// few keys (CurrentTerm, LastVoteTerm, LastVoteCand) in memory, the whole
// set saved on every Set, before Set returns, as the library requires of a
// stable store (its vote is kept before it is sent). A live node keeps the
// bytes in a file replaced by a rename, so a crash leaves the old set or
// the new.
//
// The encoding: for each key in sorted order, a uvarint length and the
// key, a uvarint length and the value.
type stableStore struct {
	mu    sync.Mutex
	store nodes.StableStore
	kv    map[string][]byte
}

// errNotFound is the error the library expects of a key never set
// (it compares the text).
var errNotFound = errors.New("not found")

func newStableStore(st nodes.StableStore) (*stableStore, error) {
	s := &stableStore{store: st, kv: map[string][]byte{}}
	b := st.LoadStable()
	for len(b) > 0 {
		k, rest, err := field(b)
		if err != nil {
			return nil, fmt.Errorf("hashicorp-raft: the stable store: %w", err)
		}
		v, rest, err := field(rest)
		if err != nil {
			return nil, fmt.Errorf("hashicorp-raft: the stable store, key %q: %w", k, err)
		}
		s.kv[string(k)], b = v, rest
	}
	return s, nil
}

func field(b []byte) (f, rest []byte, err error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, errors.New("a torn or corrupt record")
	}
	return b[w : w+int(n)], b[w+int(n):], nil
}

func (s *stableStore) Set(k, v []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kv[string(k)] = slices.Clone(v)
	var b []byte
	for _, key := range slices.Sorted(maps.Keys(s.kv)) {
		b = binary.AppendUvarint(b, uint64(len(key)))
		b = append(b, key...)
		b = binary.AppendUvarint(b, uint64(len(s.kv[key])))
		b = append(b, s.kv[key]...)
	}
	s.store.SaveStable(b)
	return nil
}

func (s *stableStore) Get(k []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.kv[string(k)]
	if !ok {
		return nil, errNotFound
	}
	return slices.Clone(v), nil
}

func (s *stableStore) SetUint64(k []byte, v uint64) error {
	return s.Set(k, binary.BigEndian.AppendUint64(nil, v))
}

func (s *stableStore) GetUint64(k []byte) (uint64, error) {
	v, err := s.Get(k)
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("hashicorp-raft: stable key %q holds %d bytes, not a uint64", k, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}
