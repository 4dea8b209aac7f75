package ring_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// These tests run the algorithms in the real simulator and pin the figures
// of ALGORITHMS.md (cited by line) under the reference model, plus
// correctness under every latency model.

const T = time.Millisecond

var sizes = []int{3, 4, 5, 17, 64, 257}

// outcome is what one simulated trial measured.
type outcome struct {
	res        *trial.Record
	theory     nodes.Theory
	turnaround float64 // in T; exact under constant latency
}

func simulate(t testing.TB, name string, rs []nodes.Rank, initiators []int, lat trial.Latency, seed uint64) outcome {
	t.Helper()
	alg, _, err := nodes.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(trial.Config{Algorithm: alg, Ranks: nodes.RanksOf(rs), Initiators: initiators, Latency: lat, Seed: seed})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.Quiescent {
		t.Fatalf("%s ranks %v initiators %v: still busy at the deadline", name, rs, initiators)
	}
	th := alg.Theory(nodes.TheoryInput{N: len(rs), Ranks: nodes.RanksOf(rs), Initiators: initiators})
	return outcome{
		res:        res,
		theory:     th,
		turnaround: float64(res.LastElection-res.FirstInitiation) / float64(lat.Mean()),
	}
}

// elected fails unless every process's latest decision is the highest rank;
// with once, also unless each decided exactly one time.
func (o outcome) elected(t testing.TB, what string, rs []nodes.Rank, once bool) {
	t.Helper()
	top := slices.MaxFunc(rs, nodes.Rank.Compare)
	for p, d := range o.res.Decisions.All() {
		if d.Count == 0 || d.Leader != top || (once && d.Count != 1) {
			t.Fatalf("%s: process %d decided %v %d times, want %v once", what, p, d.Leader, d.Count, top)
		}
	}
}

// matchesTheory fails unless the measured figures equal every figure Theory
// gives (turnaround only under constant latency).
func (o outcome) matchesTheory(t testing.TB, what string, constant bool) {
	t.Helper()
	th := o.theory
	if th.Messages != 0 && th.Messages != o.res.Messages {
		t.Fatalf("%s: %d messages, theory %d", what, o.res.Messages, th.Messages)
	}
	if th.Bound != 0 && o.res.Messages > th.Bound {
		t.Fatalf("%s: %d messages, above the bound %d", what, o.res.Messages, th.Bound)
	}
	if constant && th.Turnaround != 0 && th.Turnaround != o.turnaround {
		t.Fatalf("%s: turnaround %v T, theory %v T", what, o.turnaround, th.Turnaround)
	}
}

func ascending(n int) []nodes.Rank {
	rs := make([]nodes.Rank, n)
	for i := range rs {
		rs[i] = nodes.RankOf(uint64(i + 1))
	}
	return rs
}

func descending(n int) []nodes.Rank {
	rs := ascending(n)
	slices.Reverse(rs)
	return rs
}

func rotated(rs []nodes.Rank, k int) []nodes.Rank {
	return append(slices.Clone(rs[k:]), rs[:k]...)
}

func shuffled(n int, seed uint64) []nodes.Rank {
	rs := ascending(n)
	r := rand.New(rand.NewPCG(seed, 1))
	r.Shuffle(n, func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
	return rs
}

func maxPos(rs []nodes.Rank) int {
	top := 0
	for i, r := range rs {
		if rs[top].Less(r) {
			top = i
		}
	}
	return top
}

// ALGORITHMS.md, "ring", "chang-roberts" and "ring-initiator":
// one initiator, the successor of the would-be leader: 3N−1 messages and
// 3N−1 T; the would-be leader itself: 2N and 2N T.
func TestSingleInitiatorFigures(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator"} {
		for _, n := range sizes {
			for _, arr := range []struct {
				label string
				rs    []nodes.Rank
			}{{"ascending", ascending(n)}, {"descending", descending(n)}, {"random", shuffled(n, uint64(n))}} {
				top := maxPos(arr.rs)
				for _, c := range []struct {
					label     string
					initiator int
					want      int64
				}{
					{"successor of max", (top + 1) % n, int64(3*n - 1)},
					{"max", top, int64(2 * n)},
				} {
					what := fmt.Sprintf("%s N=%d %s, initiator %s", name, n, arr.label, c.label)
					o := simulate(t, name, arr.rs, []int{c.initiator}, trial.Constant(T), 1)
					o.elected(t, what, arr.rs, true)
					if o.res.Messages != c.want || o.turnaround != float64(c.want) {
						t.Fatalf("%s: %d messages in %v T, want %d in %d T", what, o.res.Messages, o.turnaround, c.want, c.want)
					}
					if o.theory.Messages != c.want || o.theory.Turnaround != float64(c.want) {
						t.Fatalf("%s: theory %+v, want %d messages in %d T", what, o.theory, c.want, c.want)
					}
				}
			}
		}
	}
}

// ALGORITHMS.md, "lcr", and chang-roberts with every process initiating
// at once, which then swallows exactly what lcr swallows (lines 62-64):
// ascending 3N−1, descending N(N+1)/2 + N, turnaround 2N T, ELECTED once.
func TestAllInitiateFigures(t *testing.T) {
	for _, name := range []string{"lcr", "chang-roberts"} {
		for _, n := range sizes {
			for _, c := range []struct {
				label string
				rs    []nodes.Rank
				want  int64
			}{
				{"ascending", ascending(n), int64(3*n - 1)},
				{"descending", descending(n), int64(n*(n+1)/2 + n)},
				// A rotation is the same ring read from another position.
				{"rotated ascending", rotated(ascending(n), n/3+1), int64(3*n - 1)},
				{"rotated descending", rotated(descending(n), n/3+1), int64(n*(n+1)/2 + n)},
				{"random", shuffled(n, uint64(n)), 0},
			} {
				what := fmt.Sprintf("%s N=%d %s", name, n, c.label)
				o := simulate(t, name, c.rs, trial.AllPositions(n), trial.Constant(T), 1)
				o.elected(t, what, c.rs, true)
				if c.want != 0 && (o.res.Messages != c.want || o.theory.Messages != c.want) {
					t.Fatalf("%s: %d messages, theory %d, want %d", what, o.res.Messages, o.theory.Messages, c.want)
				}
				if o.turnaround != float64(2*n) || o.theory.Turnaround != float64(2*n) {
					t.Fatalf("%s: turnaround %v T, theory %v, want %d", what, o.turnaround, o.theory.Turnaround, 2*n)
				}
				if got := o.res.MessagesByKind()["ELECTED"]; got != int64(n) {
					t.Fatalf("%s: %d ELECTED, want %d (once round)", what, got, n)
				}
				o.matchesTheory(t, what, true)
			}
		}
	}
}

// ALGORITHMS.md, "ring": in `ring` every run completes, so with several
// initiators the leader's ELECTION and ELECTED go round once per run; each
// run costs 2N + d (d: hops from its initiator to the leader) and the last
// ends at (2N + max d) T.
func TestRingSeveralInitiators(t *testing.T) {
	for _, n := range sizes {
		r := rand.New(rand.NewPCG(uint64(n), 2))
		for k := range 5 {
			rs := shuffled(n, uint64(100*n+k))
			initiators := randomSubset(r, n)
			top := maxPos(rs)
			var want, longest int64
			for _, i := range initiators {
				run := int64(2*n + (top-i+n)%n)
				want += run
				longest = max(longest, run)
			}
			what := fmt.Sprintf("ring N=%d initiators %v", n, initiators)
			o := simulate(t, "ring", rs, initiators, trial.Constant(T), 1)
			o.elected(t, what, rs, false)
			for p, d := range o.res.Decisions.All() {
				if int(d.Count) != len(initiators) {
					t.Fatalf("%s: process %d decided %d times, want once per run (%d)", what, p, d.Count, len(initiators))
				}
			}
			if o.res.Messages != want || o.turnaround != float64(longest) {
				t.Fatalf("%s: %d messages in %v T, want %d in %d T", what, o.res.Messages, o.turnaround, want, longest)
			}
			o.matchesTheory(t, what, true)
			if o.theory.Messages == 0 || o.theory.Turnaround == 0 {
				t.Fatalf("%s: theory %+v lacks a figure", what, o.theory)
			}
		}
	}
}

// ALGORITHMS.md, "ring-initiator": only the highest initiator's run completes, so with
// several initiators every process decides the highest process exactly once,
// under every latency model.
func TestRingInitiatorSeveralInitiators(t *testing.T) {
	for _, n := range sizes {
		r := rand.New(rand.NewPCG(uint64(n), 3))
		for k := range 10 {
			rs := shuffled(n, uint64(200*n+k))
			initiators := randomSubset(r, n)
			if k == 0 {
				initiators = trial.AllPositions(n)
			}
			for _, lat := range latencies {
				what := fmt.Sprintf("ring-initiator N=%d initiators %v latency %v", n, initiators, lat)
				o := simulate(t, "ring-initiator", rs, initiators, lat, uint64(k))
				o.elected(t, what, rs, true)
				if got := o.res.MessagesByKind()["ELECTED"]; got != int64(n) {
					t.Fatalf("%s: %d ELECTED, want %d", what, got, n)
				}
			}
		}
	}
}

// ALGORITHMS.md, "hs": hs elects the highest within 8N(⌈log₂N⌉+2) + 5N
// messages, ELECTED included, for every size from 3 to 300.
func TestHSWithinBound(t *testing.T) {
	for n := 3; n <= 300; n++ {
		for _, c := range []struct {
			label string
			rs    []nodes.Rank
		}{{"random", shuffled(n, uint64(n))}, {"ascending", ascending(n)}, {"descending", descending(n)}} {
			what := fmt.Sprintf("hs N=%d %s", n, c.label)
			o := simulate(t, "hs", c.rs, nil, trial.Constant(T), 1)
			o.elected(t, what, c.rs, true)
			if o.theory.Bound == 0 || o.res.Messages > o.theory.Bound {
				t.Fatalf("%s: %d messages, bound %d", what, o.res.Messages, o.theory.Bound)
			}
			if got := o.res.MessagesByKind()["ELECTED"]; got != int64(n) {
				t.Fatalf("%s: %d ELECTED, want %d", what, got, n)
			}
		}
	}
}

var latencies = []trial.Latency{
	trial.Constant(T),
	trial.Uniform{Lo: T / 2, Hi: 3 * T / 2},
	trial.Normal{MeanD: T, SD: T / 3},
	trial.Exponential{MeanD: T},
}

// randomSubset draws a non-empty set of positions, ascending.
func randomSubset(r *rand.Rand, n int) []int {
	for {
		var s []int
		p := r.Float64()
		for i := range n {
			if r.Float64() < p {
				s = append(s, i)
			}
		}
		if len(s) > 0 {
			return s
		}
	}
}

// TestElectsTheHighestUnderAnyConditions is the property: any arrangement
// (ranks with and without an election attribute), any non-empty initiator
// set, any latency model → every process decides, all on the highest rank,
// exactly once except in `ring` (one decision per run, ALGORITHMS.md, "ring");
// and every message count Theory gives holds whatever the latency, since
// none of them depends on timing.
func TestElectsTheHighestUnderAnyConditions(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 4))
	for trial := range 400 {
		n := 2 + r.IntN(40)
		if trial%50 == 0 {
			n = 2 + r.IntN(400)
		}
		rs := randomRanks(r, n)
		initiators := randomSubset(r, n)
		lat := latencies[r.IntN(len(latencies))]
		seed := r.Uint64()
		for _, name := range []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs"} {
			what := fmt.Sprintf("trial %d: %s N=%d ranks %v initiators %v latency %v seed %d", trial, name, n, rs, initiators, lat, seed)
			o := simulate(t, name, rs, initiators, lat, seed)
			o.elected(t, what, rs, name != "ring")
			o.matchesTheory(t, what, lat.Constant())
		}
	}
}

// randomRanks draws n distinct non-zero ranks: ids from a wide range, and in
// half the trials a small election attribute compared first.
func randomRanks(r *rand.Rand, n int) []nodes.Rank {
	withAttr := r.IntN(2) == 0
	seen := map[nodes.Rank]bool{}
	rs := make([]nodes.Rank, 0, n)
	for len(rs) < n {
		rk := nodes.Rank{ID: nodes.ID{0, 0, r.Uint64N(2), 1 + r.Uint64N(1<<40)}}
		if withAttr {
			rk.Attr = r.Uint64N(4)
		}
		if !seen[rk] {
			seen[rk] = true
			rs = append(rs, rk)
		}
	}
	return rs
}

// TestDeterministic: the same configuration and seed give the same counts
// and decisions (the algorithms hold no hidden randomness).
func TestDeterministic(t *testing.T) {
	rs := shuffled(64, 9)
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs"} {
		a := simulate(t, name, rs, []int{3, 20, 41}, trial.Exponential{MeanD: T}, 5)
		b := simulate(t, name, rs, []int{3, 20, 41}, trial.Exponential{MeanD: T}, 5)
		if a.res.Messages != b.res.Messages || a.res.LastElection != b.res.LastElection || !slices.Equal(a.res.Decisions.List(), b.res.Decisions.List()) {
			t.Fatalf("%s: two runs with one seed differ", name)
		}
	}
}

// BenchmarkChangRobertsMillion elects on a ring of 2^20 processes in random
// arrangement, all initiating, and reports simulated messages per second of
// wall time, end to end.
func BenchmarkChangRobertsMillion(b *testing.B) {
	const n = 1 << 20
	rs := shuffled(n, 7)
	alg, _, err := nodes.Lookup("chang-roberts")
	if err != nil {
		b.Fatal(err)
	}
	var msgs int64
	for b.Loop() {
		res, err := sim.Run(trial.Config{Algorithm: alg, Ranks: nodes.RanksOf(rs), Initiators: trial.AllPositions(n), Latency: trial.Constant(T), Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// TestMillionProcessRing: the figures hold at the scale the simulator is
// built for (ALGORITHMS.md, "ring" and "chang-roberts": 3N−1 messages and T).
func TestMillionProcessRing(t *testing.T) {
	const n = 1_000_000
	rs := shuffled(n, 11)
	initiator := (maxPos(rs) + 1) % n
	o := simulate(t, "chang-roberts", rs, []int{initiator}, trial.Constant(T), 1)
	o.elected(t, "chang-roberts N=1e6", rs, true)
	if o.res.Messages != 3*n-1 || o.turnaround != 3*n-1 {
		t.Fatalf("%d messages in %v T, want %d", o.res.Messages, o.turnaround, 3*n-1)
	}
}
