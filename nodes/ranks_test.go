package nodes

import (
	"slices"
	"testing"
)

// Small ranks answer every question as the same ranks held whole.
func TestRanksSmallAsWhole(t *testing.T) {
	ids := []uint64{5, 1, 9, 3, 9, 2}
	small := RanksFrom(ids...)
	if _, ok := small.Small(); !ok {
		t.Fatal("ids below 2³² are not held small")
	}
	whole := make([]Rank, len(ids))
	for i, v := range ids {
		whole[i] = RankOf(v)
	}
	full := RanksOf(whole)
	if _, ok := full.Small(); ok || full.Whole() == nil || small.Whole() != nil {
		t.Fatal("RanksOf holds ranks small, or Whole disagrees")
	}
	if small.Len() != len(ids) || full.Len() != len(ids) {
		t.Fatalf("Len %d and %d, want %d", small.Len(), full.Len(), len(ids))
	}
	others := []Rank{RankOf(0), RankOf(3), RankOf(4), RankOf(1 << 40), {Attr: 1, ID: IDFromUint64(1)}, {ID: ID{1, 0, 0, 0}}}
	for i := range ids {
		if small.At(i) != whole[i] {
			t.Errorf("At(%d) = %v, want %v", i, small.At(i), whole[i])
		}
		if small.IsZero(i) || full.IsZero(i) {
			t.Errorf("IsZero(%d)", i)
		}
		for j := range ids {
			if got, want := small.Cmp(i, j), whole[i].Compare(whole[j]); got != want || full.Cmp(i, j) != want {
				t.Errorf("Cmp(%d, %d) = %d and %d, want %d", i, j, got, full.Cmp(i, j), want)
			}
		}
		for _, o := range others {
			if got, want := small.CmpTo(i, &o), whole[i].Compare(o); got != want || full.CmpTo(i, &o) != want {
				t.Errorf("CmpTo(%d, %v) = %d and %d, want %d", i, o, got, full.CmpTo(i, &o), want)
			}
		}
	}
	// The first of equal extremes: position 2 holds 9 before position 4.
	if small.Extreme(1, nil) != 2 || full.Extreme(1, nil) != 2 || small.Extreme(-1, nil) != 1 || full.Extreme(-1, nil) != 1 {
		t.Errorf("Extreme: highest %d and %d, lowest %d and %d; want 2, 2, 1, 1", small.Extreme(1, nil), full.Extreme(1, nil), small.Extreme(-1, nil), full.Extreme(-1, nil))
	}
	if !slices.Equal(small.Slice(), whole) || !slices.Equal(full.Slice(), whole) {
		t.Error("Slice tells small and whole ranks apart")
	}
	if other := RanksFrom(5, 1, 9, 3, 9, 7); slices.Equal(other.Slice(), whole) {
		t.Error("Slice holds different ranks equal")
	}
	if ids32, ok := small.Small(); !ok || len(ids32) != len(ids) || full.Whole() == nil || len(full.Whole()) != len(ids) {
		t.Errorf("held as %d small identities and %d whole ranks, want %d and %d", len(ids32), len(full.Whole()), len(ids), len(ids))
	}
}

// An identity of 2³² or more is held whole; a zero identity is the zero
// rank, which Validate refuses.
func TestRanksFrom(t *testing.T) {
	if !FitSmall(1, 1<<32-1) || FitSmall(1, 1<<32) || !FitSmall() {
		t.Error("FitSmall's bound is not 2³²")
	}
	big := RanksFrom(1, 1<<32)
	if _, ok := big.Small(); ok || big.At(1) != RankOf(1<<32) {
		t.Errorf("an identity of 2³² held as %v", big.At(1))
	}
	if z := RanksFrom(3, 0); !z.IsZero(1) || z.IsZero(0) {
		t.Error("IsZero of a small zero identity")
	}
	none, zero := RanksFrom(), Ranks{}
	if none.Len() != 0 || zero.Len() != 0 {
		t.Error("no ranks")
	}
}

// Same holds for views of one arrangement only.
func TestRanksSame(t *testing.T) {
	a := RanksFrom(1, 2, 3)
	b := a
	if !a.Same(b) {
		t.Error("a copy of a view is not the same")
	}
	if c := RanksFrom(1, 2, 3); a.Same(c) {
		t.Error("equal ranks in other memory are the same")
	}
	w := a.Slice()
	if x := RanksOf(w); !x.Same(RanksOf(w)) || x.Same(a) {
		t.Error("Same of whole ranks")
	}
}

// Extreme among the live is the first highest, or lowest, of them, small
// or whole.
func TestRanksExtremeAlive(t *testing.T) {
	small := RanksFrom(5, 9, 3, 9, 7)
	full := RanksOf(small.Slice())
	for _, c := range []struct {
		alive []bool
		want  int
	}{
		{[]bool{true, true, true, true, true}, 1},
		{[]bool{true, false, true, true, true}, 3},
		{[]bool{true, false, true, false, true}, 4},
		{[]bool{false, false, true, false, false}, 2},
		{[]bool{false, false, false, false, false}, -1},
	} {
		if got, whole := small.Extreme(1, c.alive), full.Extreme(1, c.alive); got != c.want || whole != c.want {
			t.Errorf("alive %v: highest %d small, %d whole; want %d", c.alive, got, whole, c.want)
		}
	}
	if got, whole := small.Extreme(-1, []bool{false, true, false, true, true}), full.Extreme(-1, []bool{false, true, false, true, true}); got != 4 || whole != 4 {
		t.Errorf("lowest alive %d small, %d whole; want 4", got, whole)
	}
}
