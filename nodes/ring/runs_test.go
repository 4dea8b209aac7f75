package ring

import (
	"testing"

	"github.com/electbench/electbench/nodes"
)

// permutations calls f with every ordering of the ids 1..n.
func permutations(n int, f func([]uint64)) {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			f(ids)
			return
		}
		for i := k; i < n; i++ {
			ids[k], ids[i] = ids[i], ids[k]
			rec(k + 1)
			ids[k], ids[i] = ids[i], ids[k]
		}
	}
	rec(0)
}

// subsets returns every non-empty set of positions 0..n-1, ascending.
func subsets(n int) [][]int {
	var out [][]int
	for mask := 1; mask < 1<<n; mask++ {
		var s []int
		for i := range n {
			if mask&(1<<i) != 0 {
				s = append(s, i)
			}
		}
		out = append(out, s)
	}
	return out
}

// lcrReference counts lcr's messages the slow, obvious way: each id travels
// until the first higher id swallows it (the highest goes all the way
// round), then ELECTED goes round once (ALGORITHMS.md, "lcr").
func lcrReference(ids []uint64) int {
	n, total := len(ids), len(ids)
	for i, id := range ids {
		hops := 1
		for ; hops < n && ids[(i+hops)%n] < id; hops++ {
		}
		total += hops
	}
	return total
}

// TestEveryArrangementElectsTheHighest runs every arrangement of rings of 2
// to 6 processes (every initiator set up to 5, single and all-initiator sets
// at 6) on the reference model and checks correctness, the number of
// decisions, and every figure Theory gives.
func TestEveryArrangementElectsTheHighest(t *testing.T) {
	for n := 2; n <= 6; n++ {
		sets := subsets(n)
		if n == 6 {
			sets = nil
			for i := range n {
				sets = append(sets, []int{i})
			}
			sets = append(sets, []int{0, 1, 2, 3, 4, 5})
		}
		permutations(n, func(ids []uint64) {
			for _, name := range []string{"ring", "chang-roberts", "ring-initiator"} {
				for _, set := range sets {
					checkRun(t, name, ids, set)
				}
			}
			checkRun(t, "lcr", ids, nil)
			checkRun(t, "hs", ids, nil)
		})
	}
}

func checkRun(t *testing.T, name string, ids []uint64, initiators []int) {
	t.Helper()
	rs := ranks(ids...)
	n := newNet(t, name, rs)
	for _, p := range initiators {
		n.Initiate(p)
	}
	n.run()
	top := highest(rs)
	n.checkElected(top)

	// How often each process decides: once per run in `ring`, whose runs
	// all complete (ALGORITHMS.md, "ring"); once otherwise ("chang-roberts",
	// "ring-initiator").
	runs := 1
	if name == "ring" {
		runs = len(initiators)
	}
	for p, ds := range n.decisions() {
		if len(ds) != runs {
			t.Fatalf("%s ids %v initiators %v: process %d decided %d times, want %d", name, ids, initiators, p, len(ds), runs)
		}
	}
	if got, want := n.SentByKind()[kindElected.String()], runs*len(ids); got != want {
		t.Fatalf("%s ids %v initiators %v: %d ELECTED, want %d", name, ids, initiators, got, want)
	}

	// Without a suspicion no run is ever restarted: every message carries
	// run 0, which costs no byte on the wire (doc.go, "Ring repair").
	if n.rerun() != 0 {
		t.Fatalf("%s ids %v initiators %v: %d messages of restarted runs in a fault-free run", name, ids, initiators, n.rerun())
	}

	in := nodes.TheoryInput{N: len(ids), Ranks: nodes.RanksOf(rs), Initiators: initiators}
	th := n.Algorithm().Theory(in)
	if th.Messages != 0 && th.Messages != int64(n.Messages()) {
		t.Fatalf("%s ids %v initiators %v: %d messages, theory %d", name, ids, initiators, n.Messages(), th.Messages)
	}
	if th.Turnaround != 0 && th.Turnaround != float64(n.turnaround()) {
		t.Fatalf("%s ids %v initiators %v: turnaround %d T, theory %v", name, ids, initiators, n.turnaround(), th.Turnaround)
	}
	if th.Bound != 0 && int64(n.Messages()) > th.Bound {
		t.Fatalf("%s ids %v: %d messages, above the bound %d", name, ids, n.Messages(), th.Bound)
	}
	// lcr, and chang-roberts when all initiate at once, count exactly what
	// the slow reference counts, in every arrangement.
	if name == "lcr" || (name == "chang-roberts" && len(initiators) == len(ids)) {
		if want := lcrReference(ids); n.Messages() != want {
			t.Fatalf("%s ids %v: %d messages, reference %d", name, ids, n.Messages(), want)
		}
	}
}

// TestTheoryFiguresOnSmallRings pins the named cases of ALGORITHMS.md on the
// fake driver, so that the figures are checked even without the simulator.
func TestTheoryFiguresOnSmallRings(t *testing.T) {
	for _, size := range []int{2, 3, 4, 5, 8, 17} {
		asc := make([]uint64, size)
		desc := make([]uint64, size)
		for i := range size {
			asc[i], desc[i] = uint64(i+1), uint64(size-i)
		}
		last := size - 1
		cases := []struct {
			name       string
			ids        []uint64
			initiators []int
			messages   int
			turnaround int
		}{
			// ALGORITHMS.md, "ring": successor of the leader initiates: 3N−1
			// messages and T; the leader initiates: 2N.
			{"ring", asc, []int{0}, 3*size - 1, 3*size - 1},
			{"ring", asc, []int{last}, 2 * size, 2 * size},
			// "chang-roberts":, one initiator: the same figures.
			{"chang-roberts", asc, []int{0}, 3*size - 1, 3*size - 1},
			{"chang-roberts", desc, []int{0}, 2 * size, 2 * size},
			// "ring-initiator": with one initiator equals chang-roberts.
			{"ring-initiator", asc, []int{0}, 3*size - 1, 3*size - 1},
			// lines 79-82: lcr.
			{"lcr", asc, nil, 3*size - 1, 2 * size},
			{"lcr", desc, nil, size*(size+1)/2 + size, 2 * size},
		}
		for _, c := range cases {
			n := newNet(t, c.name, ranks(c.ids...))
			for _, p := range c.initiators {
				n.Initiate(p)
			}
			n.run()
			if n.Messages() != c.messages || n.turnaround() != c.turnaround {
				t.Errorf("%s N=%d ids %v: %d messages in %d T, want %d in %d T", c.name, size, c.ids, n.Messages(), n.turnaround(), c.messages, c.turnaround)
			}
		}
	}
}
