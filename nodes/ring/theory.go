package ring

import (
	"math/bits"

	"github.com/electbench/electbench/nodes"
)

// The reference figures of ALGORITHMS.md, for fault-free runs. Messages are
// exact counts under any latency model (each figure below depends only on the
// arrangement, not on timing); Turnaround is in units of T under the
// reference model (every message takes exactly T, all initiators start at
// time 0). Every function returns the zero Theory when in.Faulty or a
// process is crashed (ALGORITHMS.md gives no ring figure with crashes), when
// the input is inconsistent (ranks not distinct where it matters, initiator
// positions out of range), or when no closed form applies.
//
// Positions follow the ring: the successor of position i is i+1 mod N.
// "Ascending" means ids increase in the direction of travel all the way round
// except at the one step from the highest back to the lowest: Ranks is a
// rotation of a strictly increasing sequence (sorted from position 0 being
// one such rotation). "Descending" is the mirror image. lcr's counts and
// turnaround do not change when the ring is rotated, so every rotation gets
// the figure.

// shape is what the figures need to know about an arrangement.
type shape struct {
	n      int
	leader int // position of the highest rank
	asc    bool
	desc   bool
}

// shapeOf describes in.Ranks; ok is false when there is no usable ring
// (fewer than two processes, a size that disagrees with the ranks, a fault
// or a crash, or a highest rank held twice).
func shapeOf(in nodes.TheoryInput) (s shape, ok bool) {
	n := in.Ranks.Len()
	if in.Faulty || len(in.Crashed) > 0 || n < 2 || (in.N != 0 && in.N != n) {
		return shape{}, false
	}
	s.n = n
	// One pass over ranks in place (Ranks.Cmp): a ring of ten million
	// processes is 40 MB of small ranks or 480 MB of whole ones, and every
	// trial reads its shape twice.
	var steps [3]int // by Cmp(i, successor)+1: ups, ties, downs
	twice := false   // the highest rank so far is held twice
	for i := range n {
		next := i + 1
		if next == n {
			next = 0
		}
		steps[in.Ranks.Cmp(i, next)+1]++
		switch in.Ranks.Cmp(i, s.leader) {
		case 1:
			s.leader, twice = i, false
		case 0:
			twice = twice || i != s.leader
		}
	}
	if twice {
		return shape{}, false
	}
	ups, ties, downs := steps[0], steps[1], steps[2]
	s.asc = ties == 0 && downs == 1
	s.desc = ties == 0 && ups == 1
	return s, true
}

// toLeader is the number of hops from position i forward to the leader.
func (s shape) toLeader(i int) int { return (s.leader - i + s.n) % s.n }

// validInitiators reports whether every initiator is a position of the ring.
func (s shape) validInitiators(in []int) bool {
	for _, i := range in {
		if i < 0 || i >= s.n {
			return false
		}
	}
	return true
}

// allInitiate reports whether in lists every position once, ascending.
func (s shape) allInitiate(in []int) bool {
	if len(in) != s.n {
		return false
	}
	for i, p := range in {
		if p != i {
			return false
		}
	}
	return true
}

// singleRun is the figure for one run started at position i: its message
// takes d hops to reach the leader (each process forwards it or replaces it
// by ELECTION(self), one message for one), the leader's ELECTION goes round
// (N) and so does ELECTED (N): 2N + d messages and as many T. d = N−1 (the
// successor of the leader initiates) gives 3N−1; d = 0 (the leader) 2N
// (ALGORITHMS.md, `ring`).
func (s shape) singleRun(i int) int64 { return int64(2*s.n + s.toLeader(i)) }

// basicTheory: in `ring` the runs never interact (no flag), so with any
// initiators every run costs its 2N + d_i, and the last one ends at
// (2N + max d_i)·T when all start at time 0 (ALGORITHMS.md, `ring`,
// "Several initiators: every run completes").
func basicTheory(in nodes.TheoryInput) nodes.Theory {
	s, ok := shapeOf(in)
	if !ok || len(in.Initiators) == 0 || !s.validInitiators(in.Initiators) {
		return nodes.Theory{}
	}
	var total, longest int64
	for _, i := range in.Initiators {
		run := s.singleRun(i)
		total += run
		longest = max(longest, run)
	}
	return nodes.Theory{Messages: total, Turnaround: float64(longest)}
}

// changRobertsTheory: one initiator, the single run of `ring`. All
// initiating at time 0: every process is participating before any message
// arrives, so the flag swallows exactly what lcr swallows and the figures
// are lcr's (turnaround 2N in any arrangement; counts for ascending and
// descending rings).
func changRobertsTheory(in nodes.TheoryInput) nodes.Theory {
	s, ok := shapeOf(in)
	if !ok || !s.validInitiators(in.Initiators) {
		return nodes.Theory{}
	}
	switch {
	case len(in.Initiators) == 1:
		run := s.singleRun(in.Initiators[0])
		return nodes.Theory{Messages: run, Turnaround: float64(run)}
	case s.allInitiate(in.Initiators):
		return s.lcrOn(in.Ranks)
	}
	return nodes.Theory{}
}

// ringInitiatorTheory: with one initiator ring-initiator is chang-roberts
// (ALGORITHMS.md, `ring-initiator`); with several the count depends on how
// far lower runs get before meeting the highest, which has no closed form.
func ringInitiatorTheory(in nodes.TheoryInput) nodes.Theory {
	if len(in.Initiators) != 1 {
		return nodes.Theory{}
	}
	return changRobertsTheory(in)
}

// lcrTheory ignores in.Initiators: every process starts (StartsAll).
func lcrTheory(in nodes.TheoryInput) nodes.Theory {
	s, ok := shapeOf(in)
	if !ok {
		return nodes.Theory{}
	}
	return s.lcrOn(in.Ranks)
}

// lcrOn is lcr's figures on ranks of shape s: those of s.lcr, and on the
// bit-reversal ring of N = 2^k (id rev_k(i)+1 at position i) its count.
// There the id of a position whose index ends in exactly j ones, j < k
// (N/2^(j+1) of them), is swallowed 2^j hops on, at the first index whose
// last j+1 bits are all ones: Σ_j N/2^(j+1)·2^j = N·k/2 hops; the highest
// (k ones) goes round, N; ELECTED N more: N·log₂N/2 + 2N.
func (s shape) lcrOn(ranks nodes.Ranks) nodes.Theory {
	t := s.lcr()
	if t.Messages == 0 && bitReversed(ranks) {
		n := int64(s.n)
		t.Messages = n*int64(ceilLog2(s.n))/2 + 2*n
	}
	return t
}

// bitReversed reports whether ranks are the bit-reversal arrangement of a
// power-of-two ring (workloads' --ids bit-reversal): position i holds
// rev_k(i) + 1, N = 2^k. Random rings fail at the first or second
// position, so the pass is short where it is not the arrangement.
func bitReversed(r nodes.Ranks) bool {
	n := r.Len()
	if n < 2 || n&(n-1) != 0 {
		return false
	}
	shift := 64 - ceilLog2(n)
	for i := range n {
		want := nodes.RankOf(bits.Reverse64(uint64(i))>>shift + 1)
		if r.CmpTo(i, &want) != 0 {
			return false
		}
	}
	return true
}

// lcr gives ALGORITHMS.md's lcr figures. The highest id's message goes round
// unimpeded (N T) and ELECTED follows (N T), while every other id is
// swallowed sooner: turnaround 2N in any arrangement. Descending (successor
// smaller): the k-th lowest id travels k hops, N(N+1)/2 in all,
// plus N for ELECTED. Ascending: every id but the highest is swallowed after
// one hop (N−1), the highest goes round (N), plus N: 3N−1. For N = 2 both
// figures are 5.
func (s shape) lcr() nodes.Theory {
	n := int64(s.n)
	t := nodes.Theory{Turnaround: float64(2 * n)}
	switch {
	case s.desc:
		t.Messages = n*(n+1)/2 + n
	case s.asc:
		t.Messages = 3*n - 1
	}
	return t
}

// hsTheory: the textbook bound 8N(⌈log₂N⌉+2) + 5N, ELECTED included
// (ALGORITHMS.md, `hs`). The exact count depends on the arrangement.
func hsTheory(in nodes.TheoryInput) nodes.Theory {
	s, ok := shapeOf(in)
	if !ok {
		return nodes.Theory{}
	}
	n := int64(s.n)
	return nodes.Theory{Bound: 8*n*(int64(ceilLog2(s.n))+2) + 5*n}
}

// ceilLog2 is ⌈log₂ n⌉ for n ≥ 1.
func ceilLog2(n int) int { return bits.Len(uint(n - 1)) }
