package mutex

import (
	"math"
	"slices"
	"testing"
)

// ALGORITHMS.md, maekawa: any two voting sets meet, every set has the
// same size K+1 and every process sits in exactly K+1 sets, with
// K+1 ≤ 2⌈√N⌉−1.
func TestVotingSetsMeet(t *testing.T) {
	for n := 1; n <= 150; n++ {
		s := votingOffsets(n)
		set := func(i int) []int {
			var v []int
			for _, o := range s {
				v = append(v, (i+o)%n)
			}
			return v
		}
		in := make([]int, n)
		for i := range n {
			vi := set(i)
			for _, p := range vi {
				in[p]++
			}
			for j := range n {
				vj := set(j)
				if !slices.ContainsFunc(vi, func(p int) bool { return slices.Contains(vj, p) }) {
					t.Fatalf("N=%d: the sets of %d (%v) and %d (%v) do not meet", n, i, vi, j, vj)
				}
			}
		}
		for p, c := range in {
			if c != len(s) {
				t.Fatalf("N=%d: process %d is in %d sets, want %d", n, p, c, len(s))
			}
		}
		if k := int(math.Ceil(math.Sqrt(float64(n)))); len(s) > 2*k-1 {
			t.Errorf("N=%d: sets of %d, more than 2⌈√N⌉−1 = %d", n, len(s), 2*k-1)
		}
		if votingSetSize(n) != len(s)-1 {
			t.Errorf("N=%d: K = %d, want %d", n, votingSetSize(n), len(s)-1)
		}
	}
}
