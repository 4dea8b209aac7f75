package nodes

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/electbench/electbench/internal/prefault"
)

// Ranks are the ranks of a run's processes, by position (ring order: the
// successor of position i is i+1 mod N). Ranks built from small numbers —
// no attribute, an identity below 2³², as the simulated arrangements
// (random, ascending, descending) make them — are held as 4-byte numbers:
// ten million ranks are 40 MB rather than 480, and a pass over them (the
// highest, a ring's shape, the runtime's reads of Env.Self) reads a
// twelfth of the memory. Other ranks (minted identities, attributes, epoch ranks)
// are held whole. Both forms answer alike; a Ranks is a view, shared by
// copies, and must not be changed once a run has it.
type Ranks struct {
	small []uint32 // rank i is RankOf(small[i]), when full is nil
	full  []Rank
}

// RanksOf holds rs as they are (not copied): the caller must not change
// them afterwards.
func RanksOf(rs []Rank) Ranks {
	if rs == nil {
		rs = []Rank{}
	}
	return Ranks{full: rs}
}

// SmallRanks holds ids as the ranks RankOf(ids[i]), 4 bytes each (not
// copied): the caller must not change them afterwards. An id 0 stands for
// the zero rank, which trial.Config.Validate refuses.
func SmallRanks(ids []uint32) Ranks {
	if ids == nil {
		ids = []uint32{}
	}
	return Ranks{small: ids}
}

// FitSmall reports whether ranks of these identities are held small: every
// id fits in 32 bits.
func FitSmall(ids ...uint64) bool {
	return !slices.ContainsFunc(ids, func(v uint64) bool { return v > 1<<32-1 })
}

// RanksFrom returns the ranks of ids by position, held small when they
// fit (FitSmall).
func RanksFrom(ids ...uint64) Ranks {
	if !FitSmall(ids...) {
		rs := make([]Rank, len(ids))
		for i, v := range ids {
			rs[i] = RankOf(v)
		}
		return RanksOf(rs)
	}
	small := make([]uint32, len(ids))
	for i, v := range ids {
		small[i] = uint32(v)
	}
	return SmallRanks(small)
}

// Len is the number of processes.
func (r *Ranks) Len() int {
	if r.full != nil {
		return len(r.full)
	}
	return len(r.small)
}

// At is the rank of position i.
func (r *Ranks) At(i int) Rank {
	if r.full != nil {
		return r.full[i]
	}
	return Rank{ID: ID{3: uint64(r.small[i])}}
}

// Small returns the identities of small ranks by position, ok false when
// the ranks are held whole. The slice is shared: never modify it.
func (r *Ranks) Small() (ids []uint32, ok bool) { return r.small, r.full == nil }

// Whole returns the ranks held whole, nil when they are held small
// (Small). The slice is shared: never modify it.
func (r *Ranks) Whole() []Rank { return r.full }

// Slice returns the ranks as a slice: shared when they are held whole
// (never modify it), made afresh from small ones. For live clusters, the
// theory of small runs, and the simulator where it visits processes out
// of ring order (48 bytes a process); passes over millions of ranks use
// At, Cmp and CmpTo.
func (r *Ranks) Slice() []Rank {
	if r.full != nil {
		return r.full
	}
	out := prefault.Make[Rank](len(r.small))
	for i, v := range r.small {
		out[i] = RankOf(uint64(v))
	}
	return out
}

// Cmp compares the ranks of positions i and j in place (Rank.Compare).
func (r *Ranks) Cmp(i, j int) int {
	if r.full != nil {
		return r.full[i].Cmp(&r.full[j])
	}
	return cmp.Compare(r.small[i], r.small[j])
}

// CmpTo compares the rank of position i with o in place (Rank.Compare).
func (r *Ranks) CmpTo(i int, o *Rank) int {
	if r.full != nil {
		return r.full[i].Cmp(o)
	}
	if o.Attr|o.ID[0]|o.ID[1]|o.ID[2] != 0 {
		return -1 // o is at least 2⁶⁴ or has an attribute: above every small rank
	}
	return cmp.Compare(uint64(r.small[i]), o.ID[3])
}

// IsZero reports whether position i holds the zero rank, which no process
// may hold (trial.Config.Validate).
func (r *Ranks) IsZero(i int) bool {
	if r.full != nil {
		return r.full[i].IsZero()
	}
	return r.small[i] == 0
}

// Extreme returns the first position of the highest rank (dir 1) or of
// the lowest (dir −1) among the positions alive says are alive, every
// position when alive is nil; −1 when there is none. One compare a
// process for small ranks: a checker of ten million starts with this pass.
func (r *Ranks) Extreme(dir int, alive []bool) int {
	best := -1
	if small, ok := r.Small(); ok {
		for i, v := range small {
			if (alive == nil || alive[i]) && (best < 0 || cmp.Compare(v, small[best]) == dir) {
				best = i
			}
		}
		return best
	}
	for i := range r.full {
		if (alive == nil || alive[i]) && (best < 0 || r.full[i].Cmp(&r.full[best]) == dir) {
			best = i
		}
	}
	return best
}

// AllSame reports whether every position holds the same rank: an
// anonymous ring. A ring of distinct ranks stops at position 1.
func (r *Ranks) AllSame() bool {
	for i := 1; i < r.Len(); i++ {
		if r.Cmp(0, i) != 0 {
			return false
		}
	}
	return true
}

// Same reports whether r and o are the same ranks in the same memory: a
// cheap test that two views were made from one arrangement.
func (r *Ranks) Same(o Ranks) bool {
	return sameMemory(r.small, o.small) && sameMemory(r.full, o.full)
}

func sameMemory[T any](a, b []T) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b) && (a == nil) == (b == nil)
}
