package ring

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/electbench/electbench/nodes"
)

// The reference figures of the synchronous algorithms (ALGORITHMS.md,
// "time-slice" and "variable-speeds"), exact under the reference model
// where one round is T, for every arrangement of distinct small positive
// ids. Like the rest of the family they give nothing with faults or
// crashes, or where the input is not an arrangement the algorithms take.

// roundIDs reads in.Ranks as the numbers the synchronous algorithms use,
// with the smallest; ok is false for fewer than two processes, a size that
// disagrees with the ranks, a fault or a crash, or an id that is not a
// small positive number.
func roundIDs(in nodes.TheoryInput) (ids []uint64, least uint64, ok bool) {
	n := in.Ranks.Len()
	if in.Faulty || len(in.Crashed) > 0 || n < 2 || (in.N != 0 && in.N != n) {
		return nil, 0, false
	}
	ids = make([]uint64, n)
	least = ^uint64(0)
	for i := range ids {
		r := in.Ranks.At(i)
		v, small := r.ID.Small()
		if !small || r.Attr != 0 || v == 0 {
			return nil, 0, false
		}
		ids[i], least = v, min(least, v)
	}
	return ids, least, true
}

// timeSliceTheory: the smallest id v_min is sent in round (v_min−1)·N + 1
// and goes round in N rounds, reaching every other process before its own
// slice (ALGORITHMS.md, `time-slice`): exactly N messages, and the last
// arrives, at v_min's own process, at N·(v_min − 1) + N = N·v_min T. Other
// ids may repeat; the smallest may not (two would go round at once).
func timeSliceTheory(in nodes.TheoryInput) nodes.Theory {
	ids, least, ok := roundIDs(in)
	if !ok || count(ids, least) != 1 {
		return nodes.Theory{}
	}
	n := int64(len(ids))
	return nodes.Theory{Messages: n, Turnaround: float64(n) * float64(least)}
}

// count is how many of ids are v.
func count(ids []uint64, v uint64) int {
	c := 0
	for _, id := range ids {
		if id == v {
			c++
		}
	}
	return c
}

// variableSpeedsTheory: the smallest id's message goes round in
// N·2^v_min rounds, then ELECTED in N more (ALGORITHMS.md,
// `variable-speeds`): turnaround N·2^v_min + N T, and N ELECTED messages
// plus the ELECTION messages electionHops counts. Ids must be distinct.
func variableSpeedsTheory(in nodes.TheoryInput) nodes.Theory {
	ids, least, ok := roundIDs(in)
	n := len(ids)
	// Every time involved is below (N+1)·N·2^v_min rounds (electionHops):
	// the figures hold in int64 while that does.
	if !ok || 2*bits.Len(uint(n))+int(min(least, 64))+2 > 62 {
		return nodes.Theory{}
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != n {
		return nodes.Theory{}
	}
	return nodes.Theory{
		Messages:   electionHops(ids, least) + int64(n),
		Turnaround: float64(int64(n)<<least + int64(n)),
	}
}

// electionHops counts the ELECTION messages of variable-speeds on ids (by
// position), in rounds from 0. The message carrying v, from position p,
// arrives j hops on at j·2^v and moves on at (j+1)·2^v − 1 unless that
// process's own id is smaller or a smaller id arrived there before. A
// smaller id's path never depends on a larger one's, so walking the ids in
// increasing order, each sees every arrival that can stop it (arrived).
// An arrival never coincides with a move: arrivals are at even rounds,
// moves at odd ones (v ≥ 1). An id whose first move, at 2^v − 1, comes
// after the smallest has reached every process (by (N−1)·2^v_min) never
// moves, nor does any larger one.
func electionHops(ids []uint64, least uint64) int64 {
	n := len(ids)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ids[a], ids[b]) })
	arrived := make([]int64, n) // earliest arrival of a smaller id, by position
	for i := range arrived {
		arrived[i] = 1<<63 - 1
	}
	reach := int64(n-1) << least
	var hops int64
	for _, p := range order {
		v := ids[p]
		if v >= 62 || int64(1)<<v-1 > reach {
			break
		}
		step := int64(1) << v
		// first is the earliest arrival at q of a smaller id, read before
		// v's own arrival is recorded there.
		for j, q, first := int64(0), p, arrived[p]; first > (j+1)*step-1; {
			hops++ // v moves on from q
			j, q = j+1, (q+1)%n
			first = arrived[q]
			arrived[q] = min(first, j*step)
			if q == p || ids[q] < v {
				break // back home (the leader), or dropped: q's own id is smaller
			}
		}
	}
	return hops
}
