package tally

import (
	"math/rand/v2"
	"testing"
)

// vote is one event on a ballot.
type vote struct {
	voter   int
	granted bool
}

func y(v int) vote { return vote{v, true} }
func n(v int) vote { return vote{v, false} }

// Golden tables: the result after each vote, written out by hand.
func TestGolden(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		votes  []vote
		counts []bool   // whether each vote counted
		want   []Result // the result after each vote
	}{
		{"one voter wins alone", 1, []vote{y(0)}, []bool{true}, []Result{Won}},
		{"one voter refuses", 1, []vote{n(0)}, []bool{true}, []Result{Lost}},
		{"two voters need both", 2, []vote{y(0), y(1)}, []bool{true, true}, []Result{Pending, Won}},
		{"two voters, one refusal loses", 2, []vote{y(0), n(1)}, []bool{true, true}, []Result{Pending, Lost}},
		{"three: two of three", 3, []vote{y(2), n(0), y(1)}, []bool{true, true, true}, []Result{Pending, Pending, Won}},
		{"three: two refusals lose", 3, []vote{n(0), n(2)}, []bool{true, true}, []Result{Pending, Lost}},
		{"a repeated grant counts once", 3, []vote{y(1), y(1), y(1)}, []bool{true, false, false}, []Result{Pending, Pending, Pending}},
		{"a contradicting vote is ignored", 3, []vote{y(1), n(1), n(0), y(2)}, []bool{true, false, true, true}, []Result{Pending, Pending, Pending, Won}},
		{"strangers do not vote", 3, []vote{y(-1), y(3), y(64), y(0)}, []bool{false, false, false, true}, []Result{Pending, Pending, Pending, Pending}},
		{"four: halves are no majority", 4, []vote{y(0), y(1), n(2), n(3)}, []bool{true, true, true, true}, []Result{Pending, Pending, Pending, Lost}},
		{"five: three win", 5, []vote{y(4), y(0), n(1), y(3)}, []bool{true, true, true, true}, []Result{Pending, Pending, Pending, Won}},
		{"five: three refusals lose", 5, []vote{n(4), y(0), n(1), n(3), y(2)}, []bool{true, true, true, true, true}, []Result{Pending, Pending, Pending, Lost, Lost}},
		{"a won ballot stays won", 3, []vote{y(0), y(1), n(2)}, []bool{true, true, true}, []Result{Pending, Won, Won}},
		{"beyond one word", 130, append(grants(64, 128), y(63)), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ta Tally
			ta.Reset(tc.n)
			if tc.want == nil { // the last case: 66 grants of 130 win only with the 66th
				for i, v := range tc.votes {
					if !ta.Record(v.voter, v.granted) {
						t.Fatalf("vote %d did not count", i)
					}
					want := Pending
					if i == len(tc.votes)-1 {
						want = Won
					}
					if got := ta.Result(); got != want {
						t.Fatalf("after %d grants of %d: %v, want %v", i+1, tc.n, got, want)
					}
				}
				return
			}
			for i, v := range tc.votes {
				if got := ta.Record(v.voter, v.granted); got != tc.counts[i] {
					t.Errorf("vote %d (%+v) counted %v, want %v", i, v, got, tc.counts[i])
				}
				if got := ta.Result(); got != tc.want[i] {
					t.Errorf("after vote %d (%+v): %v, want %v", i, v, got, tc.want[i])
				}
			}
		})
	}
}

func grants(lo, hi int) []vote {
	var out []vote
	for v := lo; v <= hi; v++ {
		out = append(out, y(v))
	}
	return out
}

func TestMajority(t *testing.T) {
	for nv, want := range []int{1, 1, 2, 2, 3, 3, 4, 4, 5} {
		if got := Majority(nv); got != want {
			t.Errorf("Majority(%d) = %d, want %d", nv, got, want)
		}
	}
	// Any two majorities intersect: 2·Majority(n) > n.
	for nv := range 1000 {
		if 2*Majority(nv) <= nv {
			t.Fatalf("two majorities of %d need not intersect", nv)
		}
	}
}

// reference is the deliberately simple tally: a map of first votes, counted
// from scratch every time.
type reference struct {
	n     int
	votes map[int]bool
}

func (r *reference) record(v vote) bool {
	if v.voter < 0 || v.voter >= r.n {
		return false
	}
	if _, ok := r.votes[v.voter]; ok {
		return false
	}
	r.votes[v.voter] = v.granted
	return true
}

func (r *reference) result() Result {
	yes, no := 0, 0
	for _, g := range r.votes {
		if g {
			yes++
		} else {
			no++
		}
	}
	if yes > r.n/2 {
		return Won
	}
	// Even if every silent voter granted, could it still be a majority?
	if yes+(r.n-yes-no) <= r.n/2 {
		return Lost
	}
	return Pending
}

// The property: on random ballots (repeats, strangers, reuse of one Tally
// across ballots of different sizes) Tally agrees with the reference after
// every vote.
func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ta Tally
	for trial := range 20000 {
		nv := rng.IntN(140)
		ta.Reset(nv)
		ref := &reference{n: nv, votes: map[int]bool{}}
		if got, want := ta.Result(), ref.result(); got != want {
			t.Fatalf("trial %d, n=%d, empty ballot: %v, want %v", trial, nv, got, want)
		}
		for i := range rng.IntN(2*nv + 3) {
			v := vote{voter: rng.IntN(nv+4) - 2, granted: rng.IntN(3) > 0}
			if got, want := ta.Record(v.voter, v.granted), ref.record(v); got != want {
				t.Fatalf("trial %d, n=%d, vote %d %+v: counted %v, want %v", trial, nv, i, v, got, want)
			}
			if got, want := ta.Result(), ref.result(); got != want {
				t.Fatalf("trial %d, n=%d, vote %d %+v: %v, want %v", trial, nv, i, v, got, want)
			}
			if g, ok := ref.votes[v.voter]; ta.Voted(v.voter) != ok || ok && g && ta.Granted() == 0 {
				t.Fatalf("trial %d: Voted(%d) = %v, want %v", trial, v.voter, ta.Voted(v.voter), ok)
			}
		}
	}
}

func TestResultString(t *testing.T) {
	for r, want := range map[Result]string{Pending: "pending", Won: "won", Lost: "lost", 9: "Result(9)"} {
		if got := r.String(); got != want {
			t.Errorf("%d: %q, want %q", r, got, want)
		}
	}
}

func BenchmarkBallot(b *testing.B) {
	var ta Tally
	for b.Loop() {
		ta.Reset(5)
		for v := range 5 {
			ta.Record(v, v%2 == 0)
		}
		_ = ta.Result()
	}
}
