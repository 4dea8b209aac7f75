package etcdraft

import (
	"encoding/binary"
	"errors"
	"fmt"

	"go.etcd.io/raft/v3/raftpb"
)

// What a process keeps across a restart (nodes.StableStore), as etcd keeps
// it in its WAL: the hard state (term, vote, commit) and the log after the
// initial snapshot (bootIndex), which every process starts from anyway. It
// is a log of records, appended as the state changes and replayed on
// recovery:
//
//	1 byte   stableVersion
//	records: 1 byte kind (recHardState, recEntry), uvarint n, n bytes of
//	         raftpb.HardState or raftpb.Entry (protobuf)
//
// A hard state replaces the one before it; an entry of index i replaces
// every kept entry from i on (a follower's log overwritten by its leader's,
// as etcd's WAL replays it). A process appends an event's entries before
// its hard state, so every prefix of an append is a state it went through:
// a torn last record (a crash during the append) is one that was never
// written, and the replay stops before it. The decoder bounds every length
// by the bytes left, so what it allocates is at most a constant times its
// input's size, and it rejects a record of unknown kind, a record that does
// not decode, and a log that could not have been written (an entry that
// leaves a gap or precedes the initial snapshot, a commit beyond the log's
// end).
const stableVersion = 2

const (
	recHardState = 1
	recEntry     = 2
)

// errStable is wrapped by every decoding error.
var errStable = errors.New("etcd-raft stable state")

// encodeStable appends the whole state, as SaveStable stores it: the
// version, the entries, then the hard state.
func encodeStable(b []byte, hs raftpb.HardState, ents []raftpb.Entry) []byte {
	b = append(b, stableVersion)
	return appendRecords(b, hs, ents)
}

// appendRecords appends an event's records, as AppendStable adds them: the
// entries, then the hard state unless it is empty.
func appendRecords(b []byte, hs raftpb.HardState, ents []raftpb.Entry) []byte {
	for i := range ents {
		b = appendRecord(b, recEntry, &ents[i])
	}
	if hs != (raftpb.HardState{}) {
		b = appendRecord(b, recHardState, &hs)
	}
	return b
}

type marshaler interface {
	Size() int
	MarshalTo([]byte) (int, error)
}

func appendRecord(b []byte, kind byte, m marshaler) []byte {
	n := m.Size()
	b = append(b, kind)
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
	var ents []raftpb.Entry
	last := uint64(bootIndex)
	for off := 1; off < len(b); {
		kind := b[off]
		n, k := binary.Uvarint(b[off+1:])
		if k < 0 {
			return hs, nil, fmt.Errorf("%w: bad record length at byte %d", errStable, off+1)
		}
		if k == 0 || n > uint64(len(b)-off-1-k) {
			break // a torn last record: never written
		}
		raw := b[off+1+k : off+1+k+int(n)]
		switch kind {
		case recHardState:
			if err := hs.Unmarshal(raw); err != nil {
				return hs, nil, fmt.Errorf("%w: hard state at byte %d: %v", errStable, off, err)
			}
		case recEntry:
			var e raftpb.Entry
			if err := e.Unmarshal(raw); err != nil {
				return hs, nil, fmt.Errorf("%w: entry at byte %d: %v", errStable, off, err)
			}
			if e.Index <= bootIndex || e.Index > last+1 {
				return hs, nil, fmt.Errorf("%w: entry at byte %d has index %d, after a log ending at %d", errStable, off, e.Index, last)
			}
			ents = append(ents[:e.Index-bootIndex-1], e)
			last = e.Index
		default:
			return hs, nil, fmt.Errorf("%w: record of unknown kind %d at byte %d", errStable, kind, off)
		}
		off += 1 + k + int(n)
	}
	if hs.Commit > last {
		return hs, nil, fmt.Errorf("%w: commit %d beyond the log's last index %d", errStable, hs.Commit, last)
	}
	return hs, ents, nil
}
