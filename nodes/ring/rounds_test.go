package ring_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// roundArrangements are the arrangements the synchronous figures are pinned
// on for each N: random, the two fixed orders, and a random one of ids
// 5..N+4, whose smallest id is 5 (time grows with it).
func roundArrangements(n int) []struct {
	label string
	rs    []nodes.Rank
} {
	offset := shuffled(n, uint64(n)+7)
	for i, r := range offset {
		v, _ := r.ID.Small()
		offset[i] = nodes.RankOf(v + 4)
	}
	return []struct {
		label string
		rs    []nodes.Rank
	}{{"random", shuffled(n, uint64(n))}, {"ascending", ascending(n)}, {"descending", descending(n)}, {"ids 5..N+4", offset}}
}

// electedLowest fails unless every process decided the lowest rank once.
func (o outcome) electedLowest(t *testing.T, what string, rs []nodes.Rank) {
	t.Helper()
	low := slices.MinFunc(rs, nodes.Rank.Compare)
	for p, d := range o.res.Decisions.All() {
		if d.Count != 1 || d.Leader != low {
			t.Fatalf("%s: process %d decided %v %d times, want %v once", what, p, d.Leader, d.Count, low)
		}
	}
}

// ALGORITHMS.md, "time-slice": exactly N messages, turnaround
// N·(v_min − 1) + N = N·v_min T, for every arrangement.
func TestTimeSliceFigures(t *testing.T) {
	for _, n := range []int{3, 8, 64, 1000} {
		for _, arr := range roundArrangements(n) {
			what := fmt.Sprintf("time-slice N=%d %s", n, arr.label)
			o := simulate(t, "time-slice", arr.rs, trial.AllPositions(n), trial.Constant(T), 1)
			o.electedLowest(t, what, arr.rs)
			vmin, _ := slices.MinFunc(arr.rs, nodes.Rank.Compare).ID.Small()
			want := nodes.Theory{Messages: int64(n), Turnaround: float64(n) * float64(vmin)}
			if o.res.Messages != want.Messages || o.turnaround != want.Turnaround {
				t.Fatalf("%s: %d messages in %v T, want %d in %v T", what, o.res.Messages, o.turnaround, want.Messages, want.Turnaround)
			}
			if o.theory != want {
				t.Fatalf("%s: theory %+v, want %+v", what, o.theory, want)
			}
		}
	}
}

// ALGORITHMS.md, "variable-speeds": turnaround N·2^v_min + N T, fewer
// than 2N ELECTION messages plus N ELECTED, and the count the theory
// derives from the arrangement, for every arrangement.
func TestVariableSpeedsFigures(t *testing.T) {
	for _, n := range []int{3, 8, 64, 1000} {
		for _, arr := range roundArrangements(n) {
			what := fmt.Sprintf("variable-speeds N=%d %s", n, arr.label)
			o := simulate(t, "variable-speeds", arr.rs, trial.AllPositions(n), trial.Constant(T), 1)
			o.electedLowest(t, what, arr.rs)
			vmin, _ := slices.MinFunc(arr.rs, nodes.Rank.Compare).ID.Small()
			if want := float64(n<<vmin + n); o.turnaround != want || o.theory.Turnaround != want {
				t.Fatalf("%s: turnaround %v T, theory %v T, want %v T", what, o.turnaround, o.theory.Turnaround, want)
			}
			if o.res.Messages != o.theory.Messages || o.res.Messages >= int64(3*n) {
				t.Fatalf("%s: %d messages, theory %d, want it below 3N = %d", what, o.res.Messages, o.theory.Messages, 3*n)
			}
		}
	}
}

// ALGORITHMS.md, "variable-speeds", worked by hand: ascending 1,2,3 sends
// only id 1's three ELECTION (id 1 reaches id 2 at round 2, before id 2
// moves at round 3), then 3 ELECTED: 6 in 9 T; descending 3,2,1 also moves
// id 2 once (id 1 reaches it only at round 4): 7 in 9 T.
func TestVariableSpeedsByHand(t *testing.T) {
	for _, c := range []struct {
		rs   []nodes.Rank
		want int64
	}{{ascending(3), 6}, {descending(3), 7}} {
		o := simulate(t, "variable-speeds", c.rs, trial.AllPositions(3), trial.Constant(T), 1)
		if o.res.Messages != c.want || o.theory.Messages != c.want || o.turnaround != 9 {
			t.Fatalf("%v: %d messages (theory %d) in %v T, want %d in 9 T", c.rs, o.res.Messages, o.theory.Messages, o.turnaround, c.want)
		}
	}
}
