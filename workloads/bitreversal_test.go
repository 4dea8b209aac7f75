package workloads

import (
	"slices"
	"testing"
)

// --ids bit-reversal places, for N = 2^k, id rev_k(i) + 1 at position i
// (ALGORITHMS.md, `lcr`); for other N the same order on the positions
// that exist, a permutation of 1..N.
func TestBitReversalIDs(t *testing.T) {
	a, err := ParseIDs("bit-reversal")
	if err != nil || a.String() != "bit-reversal" {
		t.Fatalf("ParseIDs: %+v, %v", a, err)
	}
	for _, c := range []struct {
		n    int
		want []uint32
	}{
		{1, []uint32{1}},
		{2, []uint32{1, 2}},
		{8, []uint32{1, 5, 3, 7, 2, 6, 4, 8}},
		{6, []uint32{1, 4, 3, 6, 2, 5}}, // positions by reversed 3-bit index: 0 (0), 4 (1), 2 (2), 1 (4), 5 (5), 3 (6)
	} {
		r := a.Ranks(c.n, 1)
		got, small := r.Small()
		if !small || !slices.Equal(got, c.want) {
			t.Errorf("N=%d: %v, want %v", c.n, got, c.want)
		}
	}
}
