package etcdraft

import (
	"encoding/binary"
	"errors"
	"fmt"

	"go.etcd.io/raft/v3/raftpb"
)

// What a process keeps across a restart (nodes.StableStore), as etcd keeps
// it in its WAL: the hard state (term, vote, commit) and the log after the
// initial snapshot (bootIndex), which every process starts from anyway.
//
//	1 byte   stableVersion
//	uvarint  n, then n bytes: raftpb.HardState (protobuf)
//	uvarint  count of entries, then per entry: uvarint n, n bytes of raftpb.Entry
//
// The decoder bounds every length and count by the bytes left, so what it
// allocates is at most a constant times its input's size, and it rejects
// trailing bytes and a log that could not have been written (not starting
// right after the initial snapshot, a gap, a commit beyond its end).
const stableVersion = 1

// errStable is wrapped by every decoding error.
var errStable = errors.New("etcd-raft stable state")

func encodeStable(b []byte, hs raftpb.HardState, ents []raftpb.Entry) []byte {
	b = append(b, stableVersion)
	b = appendProto(b, &hs)
	b = binary.AppendUvarint(b, uint64(len(ents)))
	for i := range ents {
		b = appendProto(b, &ents[i])
	}
	return b
}

type marshaler interface {
	Size() int
	MarshalTo([]byte) (int, error)
}

func appendProto(b []byte, m marshaler) []byte {
	n := m.Size()
	b = binary.AppendUvarint(b, uint64(n))
	start := len(b)
	b = append(b, make([]byte, n)...)
	if _, err := m.MarshalTo(b[start:]); err != nil {
		panic(fmt.Sprintf("etcd-raft: marshalling %T: %v", m, err)) // gogo's MarshalTo fails only on a short buffer
	}
	return b
}

func decodeStable(b []byte) (raftpb.HardState, []raftpb.Entry, error) {
	var hs raftpb.HardState
	if len(b) == 0 || b[0] != stableVersion {
		return hs, nil, fmt.Errorf("%w: not version %d", errStable, stableVersion)
	}
	off := 1
	next := func(what string) ([]byte, error) {
		n, k := binary.Uvarint(b[off:])
		if k <= 0 || n > uint64(len(b)-off-k) {
			return nil, fmt.Errorf("%w: bad length of %s at byte %d", errStable, what, off)
		}
		off += k
		v := b[off : off+int(n)]
		off += int(n)
		return v, nil
	}
	raw, err := next("the hard state")
	if err != nil {
		return hs, nil, err
	}
	if err := hs.Unmarshal(raw); err != nil {
		return hs, nil, fmt.Errorf("%w: hard state: %v", errStable, err)
	}
	count, k := binary.Uvarint(b[off:])
	// Every entry takes at least one byte, which bounds count by the input.
	if k <= 0 || count > uint64(len(b)-off-k) {
		return hs, nil, fmt.Errorf("%w: bad entry count at byte %d", errStable, off)
	}
	off += k
	ents := make([]raftpb.Entry, count)
	for i := range ents {
		raw, err := next(fmt.Sprintf("entry %d", i))
		if err != nil {
			return hs, nil, err
		}
		if err := ents[i].Unmarshal(raw); err != nil {
			return hs, nil, fmt.Errorf("%w: entry %d: %v", errStable, i, err)
		}
		if i > 0 && ents[i].Index != ents[i-1].Index+1 {
			return hs, nil, fmt.Errorf("%w: entry %d has index %d after %d", errStable, i, ents[i].Index, ents[i-1].Index)
		}
	}
	if off != len(b) {
		return hs, nil, fmt.Errorf("%w: %d trailing bytes", errStable, len(b)-off)
	}
	last := uint64(bootIndex)
	if len(ents) > 0 {
		if ents[0].Index != bootIndex+1 {
			return hs, nil, fmt.Errorf("%w: the log starts at index %d, not %d", errStable, ents[0].Index, bootIndex+1)
		}
		last = ents[len(ents)-1].Index
	}
	if hs.Commit > last {
		return hs, nil, fmt.Errorf("%w: commit %d beyond the log's last index %d", errStable, hs.Commit, last)
	}
	return hs, ents, nil
}
