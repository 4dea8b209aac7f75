package ring

import (
	"testing"
	"unsafe"

	"github.com/electbench/electbench/nodes"
)

func TestTheoryTable(t *testing.T) {
	asc5 := ranks(1, 2, 3, 4, 5)
	desc5 := ranks(5, 4, 3, 2, 1)
	rot5 := ranks(4, 5, 1, 2, 3)   // ascending, read from position 2
	drot5 := ranks(2, 1, 5, 4, 3)  // descending, read from position 2
	mixed5 := ranks(3, 1, 4, 5, 2) // neither
	dupTop := ranks(5, 1, 5, 2, 3) // the highest rank twice
	dupLow := ranks(3, 1, 3, 5, 2) // a lower rank twice: the highest is unique
	allOf5 := []int{0, 1, 2, 3, 4}
	for _, c := range []struct {
		name string
		in   nodes.TheoryInput
		want nodes.Theory
	}{
		// ALGORITHMS.md, "ring": successor of the leader 3N−1, leader 2N.
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: []int{0}}, nodes.Theory{Messages: 14, Turnaround: 14}},
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: []int{4}}, nodes.Theory{Messages: 10, Turnaround: 10}},
		// lines 52-53: every run counts: (10+4) + (10+2) + (10+0), the last ends at 14 T.
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: []int{0, 2, 4}}, nodes.Theory{Messages: 36, Turnaround: 14}},
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(mixed5), Initiators: []int{4}}, nodes.Theory{Messages: 14, Turnaround: 14}},
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5)}, nodes.Theory{}},
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: []int{5}}, nodes.Theory{}},
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(dupTop), Initiators: []int{1}}, nodes.Theory{}},
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(dupLow), Initiators: []int{4}}, nodes.Theory{Messages: 14, Turnaround: 14}},
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: []int{0}, Faulty: true}, nodes.Theory{}},
		{"ring", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: []int{0}, Crashed: []int{4}}, nodes.Theory{}},
		{"ring", nodes.TheoryInput{N: 6, Ranks: nodes.RanksOf(asc5), Initiators: []int{0}}, nodes.Theory{}},
		{"ring", nodes.TheoryInput{N: 1, Ranks: nodes.RanksOf(ranks(1)), Initiators: []int{0}}, nodes.Theory{}},
		// "chang-roberts": with one initiator as ring; all at once as lcr.
		{"chang-roberts", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(mixed5), Initiators: []int{4}}, nodes.Theory{Messages: 14, Turnaround: 14}},
		{"chang-roberts", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: allOf5}, nodes.Theory{Messages: 14, Turnaround: 10}},
		{"chang-roberts", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(desc5), Initiators: allOf5}, nodes.Theory{Messages: 20, Turnaround: 10}},
		{"chang-roberts", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(mixed5), Initiators: allOf5}, nodes.Theory{Turnaround: 10}},
		{"chang-roberts", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: []int{0, 1}}, nodes.Theory{}},
		// lines 72-73: ring-initiator with one initiator as chang-roberts, otherwise none.
		{"ring-initiator", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: []int{0}}, nodes.Theory{Messages: 14, Turnaround: 14}},
		{"ring-initiator", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Initiators: allOf5}, nodes.Theory{}},
		// lines 79-82: lcr; a rotation of a sorted ring is the same ring.
		{"lcr", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5)}, nodes.Theory{Messages: 14, Turnaround: 10}},
		{"lcr", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(rot5)}, nodes.Theory{Messages: 14, Turnaround: 10}},
		{"lcr", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(desc5), Initiators: []int{2}}, nodes.Theory{Messages: 20, Turnaround: 10}},
		{"lcr", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(drot5)}, nodes.Theory{Messages: 20, Turnaround: 10}},
		{"lcr", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(mixed5)}, nodes.Theory{Turnaround: 10}},
		{"lcr", nodes.TheoryInput{N: 2, Ranks: nodes.RanksOf(ranks(1, 2))}, nodes.Theory{Messages: 5, Turnaround: 4}},
		{"lcr", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(asc5), Faulty: true}, nodes.Theory{}},
		// "hs": 8N(⌈log₂N⌉+2) + 5N.
		{"hs", nodes.TheoryInput{N: 3, Ranks: nodes.RanksOf(ranks(1, 2, 3))}, nodes.Theory{Bound: 8*3*(2+2) + 15}},
		{"hs", nodes.TheoryInput{N: 4, Ranks: nodes.RanksOf(ranks(1, 2, 3, 4))}, nodes.Theory{Bound: 8*4*(2+2) + 20}},
		{"hs", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(mixed5)}, nodes.Theory{Bound: 8*5*(3+2) + 25}},
		{"hs", nodes.TheoryInput{N: 5, Ranks: nodes.RanksOf(mixed5), Crashed: []int{0}}, nodes.Theory{}},
	} {
		alg, _, err := nodes.Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := alg.Theory(c.in); got != c.want {
			t.Errorf("%s %v initiators %v faulty %v crashed %v: %+v, want %+v", c.name, c.in.Ranks, c.in.Initiators, c.in.Faulty, c.in.Crashed, got, c.want)
		}
	}
}

func TestCeilLog2(t *testing.T) {
	for n, want := range map[int]int{1: 0, 2: 1, 3: 2, 4: 2, 5: 3, 8: 3, 9: 4, 1 << 20: 20, 1<<20 + 1: 21} {
		if got := ceilLog2(n); got != want {
			t.Errorf("ceilLog2(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestProcessesAreSmall pins the per-process state: the simulator holds a
// million of these (a few words each; hs a little more).
func TestProcessesAreSmall(t *testing.T) {
	for _, c := range []struct {
		name string
		size uintptr
		max  uintptr
	}{
		{"ring", unsafe.Sizeof(basic{}), 16},
		{"chang-roberts", unsafe.Sizeof(changRoberts{}), 16},
		{"ring-initiator", unsafe.Sizeof(ringInitiator{}), 64}, // chang-roberts and a rank (48 bytes, nodes.Rank)
		{"lcr", unsafe.Sizeof(lcr{}), 16},
		{"hs", unsafe.Sizeof(hs{}), 24},
	} {
		if c.size > c.max {
			t.Errorf("%s: %d bytes per process, want at most %d", c.name, c.size, c.max)
		}
	}
}
