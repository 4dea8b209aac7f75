package trial

import (
	"iter"
	"time"

	"github.com/electbench/electbench/internal/prefault"
	"github.com/electbench/electbench/nodes"
)

// Decision is a process's latest belief about the leader.
type Decision struct {
	Leader nodes.Rank
	At     time.Duration // when the latest decision was made
	Count  int32         // decisions made; 0 means never decided
}

// Decisions holds every process's latest decision, by position. A run of
// ten million processes decides one leader (or a handful) ten million
// times, so a decision keeps the leader as an index into a table of the
// distinct leaders decided (RankTable): 16 bytes a process instead of 56.
type Decisions struct {
	list    []decision
	leaders RankTable
}

type decision struct {
	at     time.Duration
	count  int32
	leader int32 // index in leaders; meaningless while count is 0
}

// NewDecisions prepares the decisions of n processes, none made.
// Ten million decisions are 160 MB, faulted in at once (prefault.Make)
// rather than page by page as the run decides.
func NewDecisions(n int) Decisions { return Decisions{list: prefault.Make[decision](n)} }

// Len is the number of processes.
func (d *Decisions) Len() int { return len(d.list) }

// Get returns p's latest decision (the zero Decision if it never decided).
func (d *Decisions) Get(p int) Decision {
	x := d.list[p]
	if x.count == 0 {
		return Decision{}
	}
	return Decision{Leader: d.leaders.Rank(x.leader), At: x.at, Count: x.count}
}

// All yields every process's latest decision, by position.
func (d *Decisions) All() iter.Seq2[int, Decision] {
	return func(yield func(int, Decision) bool) {
		for p := range d.list {
			if !yield(p, d.Get(p)) {
				return
			}
		}
	}
}

// Decided notes p's decision for leader at `at`. It reads the leader where
// it lies (a run of ten million processes decides ten million times).
func (d *Decisions) Decided(p int, leader *nodes.Rank, at time.Duration) {
	x := &d.list[p]
	x.leader, x.at = d.leaders.Index(leader), at
	x.count++
}

// Forget makes p a process that never decided (a restart).
func (d *Decisions) Forget(p int) { d.list[p] = decision{} }

// RankTable numbers distinct ranks in the order they are first seen, so
// that per-process state can refer to a rank by a 4-byte index. Index is
// constant-time for the rank seen last (a run's decisions mostly repeat
// one leader: it compares with Rank.Cmp, as == on ranks is a call to
// memequal) and a map look-up otherwise. The map is made only past
// rankScan ranks: a small trial's one or two leaders are found by
// comparing, and its map, a kilobyte a trial, paced the garbage collector
// (issue 42).
type RankTable struct {
	ranks []nodes.Rank
	index map[nodes.Rank]int32
	last  int32
}

// Index returns r's number, giving it the next one if r is new. It reads r
// in place: on the common path nothing is copied.
func (t *RankTable) Index(r *nodes.Rank) int32 {
	if len(t.ranks) > 0 && t.ranks[t.last].Cmp(r) == 0 {
		return t.last
	}
	if i, ok := t.find(r); ok {
		t.last = i
		return i
	}
	i := int32(len(t.ranks))
	if t.ranks == nil {
		// Room for a crashed leader's successors: appending one at a time
		// grew the array at each of a raft trial's first leaders (issue 42).
		t.ranks = make([]nodes.Rank, 0, rankFirst)
	}
	t.ranks = append(t.ranks, *r)
	switch {
	case t.index != nil:
		t.index[*r] = i
	case len(t.ranks) > rankScan:
		t.index = make(map[nodes.Rank]int32, len(t.ranks))
		for j := range t.ranks {
			t.index[t.ranks[j]] = int32(j)
		}
	}
	t.last = i
	return i
}

// rankScan is how many ranks a RankTable finds by comparing before it
// makes its map.
const rankScan = 8

// rankFirst is how many ranks a RankTable makes room for at its first.
const rankFirst = 4

// find looks r up: by comparing while the table is small, in the map after.
func (t *RankTable) find(r *nodes.Rank) (int32, bool) {
	if t.index != nil {
		i, ok := t.index[*r]
		return i, ok
	}
	for j := range t.ranks {
		if t.ranks[j].Cmp(r) == 0 {
			return int32(j), true
		}
	}
	return 0, false
}

// Lookup returns r's number without adding it.
func (t *RankTable) Lookup(r *nodes.Rank) (int32, bool) {
	if len(t.ranks) > 0 && t.ranks[t.last].Cmp(r) == 0 {
		return t.last, true
	}
	return t.find(r)
}

// Rank returns the rank numbered i.
func (t *RankTable) Rank(i int32) nodes.Rank { return t.ranks[i] }

// Len is how many distinct ranks the table holds.
func (t *RankTable) Len() int { return len(t.ranks) }

// List returns every process's latest decision as a slice, by position
// (for small runs and tests: it allocates 56 bytes a process).
func (d *Decisions) List() []Decision {
	out := make([]Decision, len(d.list))
	for p := range d.list {
		out[p] = d.Get(p)
	}
	return out
}
