package bully

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

// The figures of ALGORITHMS.md, measured on the fake network (the reference
// model), and checked against Theory. sim_test.go checks the same figures on
// the simulator.

var sizes = []int{3, 5, 8, 16, 33}

// run is one measured trial.
type run struct {
	n          *nodetest.Net
	sent       map[string]int
	total      int
	turnaround float64 // in T
}

// trial runs spec on ids with one initiator; if crashHighest, the highest
// process is crashed before the run and, at time 0, the initiator's detector
// suspects it (before it is told to initiate), as TheoryInput describes.
func trial(t *testing.T, spec string, params nodes.Params, ids []uint64, initiator int, crashHighest bool) run {
	t.Helper()
	n := newNet(t, spec, params, ids...)
	top := slices.Index(ids, slices.Max(ids))
	if crashHighest {
		n.Crash(top)
	}
	n.At(0, func() {
		if crashHighest {
			n.Suspect(initiator, top)
		}
		n.Initiate(initiator)
	})
	n.Stabilize(200 * T)
	r := run{n: n, sent: n.SentByKind(), total: n.Messages(), turnaround: -1}
	if n.LastElection() >= 0 {
		r.turnaround = float64(n.LastElection()) / float64(T)
	}
	return r
}

// correct checks that every live process's last decision is the highest
// live process, and that no two-phase invariant was broken.
func (r run) correct(t *testing.T) {
	t.Helper()
	n := r.n
	var want nodes.Rank
	for i := range n.Size() {
		if !n.Crashed(i) && want.Less(n.Rank(i)) {
			want = n.Rank(i)
		}
	}
	for i := range n.Size() {
		if n.Crashed(i) {
			continue
		}
		if d := n.Decided(i); len(d) == 0 || d[len(d)-1] != want {
			t.Fatalf("process %d (id %v) decided %v, want %v last", i, n.Rank(i), d, want)
		}
	}
	if v := n.PhaseViolations(); v > 0 {
		t.Fatalf("%d times two processes in Normal disagreed", v)
	}
}

func (r run) expect(t *testing.T, want map[string]int, turnaround float64) {
	t.Helper()
	if !maps.Equal(r.sent, want) {
		t.Errorf("sent %v, want %v", r.sent, want)
	}
	if r.turnaround != turnaround {
		t.Errorf("turnaround %vT, want %vT", r.turnaround, turnaround)
	}
}

// ALGORITHMS.md, "bully": the highest crashed, only the lowest has detected
// it: ELECTION N(N−1)/2, OK (N−1)(N−2)/2, COORDINATOR N−2, turnaround 4T;
// only the second-highest: N−2 messages, 1T. ALGORITHMS.md, "bully with announce: two-phase": two-phase
// costs one HALT per process below the winner and one ACK per live one more.
func TestTextbookCrash(t *testing.T) {
	for _, n := range sizes {
		ids := shuffled(n, uint64(n))
		lowest, second := slices.Index(ids, 1), slices.Index(ids, uint64(n-1))
		t.Run(fmt.Sprintf("N=%d/lowest", n), func(t *testing.T) {
			r := trial(t, "bully", nil, ids, lowest, true)
			r.correct(t)
			r.expect(t, map[string]int{"ELECTION": n * (n - 1) / 2, "OK": (n - 1) * (n - 2) / 2, "COORDINATOR": n - 2}, 4)
			if !maps.Equal(r.n.Fired(), map[string]int{"T1": 1}) { // only the second-highest's T1
				t.Errorf("timers fired %v, want T1 once", r.n.Fired())
			}
			r2 := trial(t, "bully/two-phase", nil, ids, lowest, true)
			r2.correct(t)
			r2.expect(t, map[string]int{"ELECTION": n * (n - 1) / 2, "OK": (n - 1) * (n - 2) / 2, "COORDINATOR": n - 2, "HALT": n - 2, "ACK": n - 2}, 6)
			if r2.total-r.total != 2*(n-2) {
				t.Errorf("two-phase costs %d more, want 2(N−2) = %d", r2.total-r.total, 2*(n-2))
			}
		})
		t.Run(fmt.Sprintf("N=%d/second-highest", n), func(t *testing.T) {
			r := trial(t, "bully", nil, ids, second, true)
			r.correct(t)
			r.expect(t, map[string]int{"COORDINATOR": n - 2}, 1)
			r2 := trial(t, "bully/two-phase", nil, ids, second, true)
			r2.correct(t)
			r2.expect(t, map[string]int{"COORDINATOR": n - 2, "HALT": n - 2, "ACK": n - 2}, 3)
		})
	}
}

// Without a crash, the lowest initiator's run: every ELECTION is answered, and
// the highest, idle after announcing, announces again on each of the N−1
// ELECTIONs that reach it (ALGORITHMS.md, "bully", as written).
func TestNoCrashLowestInitiator(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			ids := shuffled(n, uint64(n)+100)
			lowest := slices.Index(ids, 1)
			r := trial(t, "bully", nil, ids, lowest, false)
			r.correct(t)
			r.expect(t, map[string]int{"ELECTION": n * (n - 1) / 2, "OK": n * (n - 1) / 2, "COORDINATOR": (n - 1) * (n - 1)}, 3)
			if len(r.n.Fired()) != 0 {
				t.Errorf("timers fired %v, want none", r.n.Fired())
			}
			r2 := trial(t, "bully/two-phase", nil, ids, lowest, false)
			r2.correct(t)
			r2.expect(t, map[string]int{"ELECTION": n * (n - 1) / 2, "OK": n * (n - 1) / 2, "HALT": n - 1, "ACK": n - 1, "COORDINATOR": n - 1}, 4)
		})
	}
}

// Every configuration Theory covers — each algorithm and variant, every
// initiator, nobody or the highest crashed — measures exactly its figures,
// and elects the highest live process.
func TestTheoryMatchesRuns(t *testing.T) {
	specs := []string{"bully/classic", "bully/two-phase", "multicast/agree", "multicast/no-agree"}
	for _, spec := range specs {
		for _, n := range append([]int{2}, sizes...) {
			ids := shuffled(n, uint64(7*n))
			for init := range n {
				for _, crash := range []bool{false, true} {
					top := slices.Index(ids, uint64(n))
					if crash && init == top {
						continue
					}
					name := fmt.Sprintf("%s/N=%d/init=%d/crash=%v", spec, n, ids[init], crash)
					t.Run(name, func(t *testing.T) {
						r := trial(t, spec, nil, ids, init, crash)
						alg, variant, _ := nodes.Lookup(spec)
						in := nodes.TheoryInput{Variant: variant, N: n, Initiators: []int{init}}
						in.Ranks = nodes.RanksFrom(ids...)
						if crash {
							in.Crashed = []int{top}
						}
						th := alg.Theory(in)
						if crash && n == 2 {
							if th != (nodes.Theory{}) {
								t.Fatalf("theory %+v for a run that delivers nothing", th)
							}
							return
						}
						r.correct(t)
						if th.Messages == 0 || th.Turnaround == 0 {
							t.Fatalf("no theory for a covered configuration: %+v", th)
						}
						if int64(r.total) != th.Messages || r.turnaround != th.Turnaround {
							t.Errorf("measured %d messages %v, turnaround %vT; theory %d, %vT", r.total, r.sent, r.turnaround, th.Messages, th.Turnaround)
						}
					})
				}
			}
		}
	}
}

func TestTheoryDeclines(t *testing.T) {
	rs := []nodes.Rank{nodes.RankOf(3), nodes.RankOf(1), nodes.RankOf(2)}
	for name, in := range map[string]nodes.TheoryInput{
		"faulty":             {N: 3, Ranks: nodes.RanksOf(rs), Initiators: []int{1}, Faulty: true},
		"two initiators":     {N: 3, Ranks: nodes.RanksOf(rs), Initiators: []int{1, 2}},
		"no initiator":       {N: 3, Ranks: nodes.RanksOf(rs)},
		"initiator range":    {N: 3, Ranks: nodes.RanksOf(rs), Initiators: []int{3}},
		"size mismatch":      {N: 4, Ranks: nodes.RanksOf(rs), Initiators: []int{1}},
		"duplicate ranks":    {N: 3, Ranks: nodes.RanksOf([]nodes.Rank{rs[0], rs[1], rs[1]}), Initiators: []int{1}},
		"lower crashed":      {N: 3, Ranks: nodes.RanksOf(rs), Initiators: []int{1}, Crashed: []int{2}},
		"two crashed":        {N: 3, Ranks: nodes.RanksOf(rs), Initiators: []int{1}, Crashed: []int{0, 2}},
		"crashed initiator":  {N: 3, Ranks: nodes.RanksOf(rs), Initiators: []int{0}, Crashed: []int{0}},
		"N=2 highest gone":   {N: 2, Ranks: nodes.RanksOf(rs[1:]), Initiators: []int{0}, Crashed: []int{1}},
		"unknown variant":    {Variant: "three-phase", N: 3, Ranks: nodes.RanksOf(rs), Initiators: []int{1}},
		"too few processes":  {N: 1, Ranks: nodes.RanksOf(rs[:1]), Initiators: []int{0}},
		"initiator negative": {N: 3, Ranks: nodes.RanksOf(rs), Initiators: []int{-1}},
	} {
		for _, th := range []func(nodes.TheoryInput) nodes.Theory{bullyTheory, multicastTheory} {
			if got := th(in); got != (nodes.Theory{}) {
				t.Errorf("%s: %+v, want no figures", name, got)
			}
		}
	}
}

// ALGORITHMS.md, "bully": "a T1 below 2T lets a lower process win while a
// higher one is alive, and the checker must catch it". The runs end agreeing
// on the highest, so only the decision history shows the violation.
func TestShortT1LetsLowerWin(t *testing.T) {
	r := trial(t, "bully", nodes.Params{"t1": "1T"}, ascending(5), 0, false)
	r.correct(t)
	if got := r.n.Decided(0); len(got) == 0 || got[0] != nodes.RankOf(1) {
		t.Fatalf("lowest decided %v, want itself first", got)
	}
	r = trial(t, "bully", nodes.Params{"t1": "1.5T"}, ascending(5), 0, true)
	if got := r.n.Decided(0); len(got) == 0 || got[0] != nodes.RankOf(1) {
		t.Fatalf("lowest decided %v, want itself first", got)
	}
}

// Random runs with a perfect detector: several initiators, the highest
// crashed or not, every live process suspecting the crash after a random
// delay. Every algorithm must elect the highest live process everywhere, and
// two-phase must never have two processes in Normal disagree.
func TestRandomRunsElectHighestLive(t *testing.T) {
	specs := []string{"bully/classic", "bully/two-phase", "multicast/agree", "multicast/no-agree"}
	for seed := range uint64(100) {
		rnd := rand.New(rand.NewPCG(seed, 2))
		size := 2 + rnd.IntN(19)
		ids := shuffled(size, seed)
		crash := rnd.IntN(2) == 0
		top := slices.Index(ids, uint64(size))
		var inits []int
		for p := range size {
			if rnd.IntN(3) == 0 && !(crash && p == top) {
				inits = append(inits, p)
			}
		}
		if len(inits) == 0 {
			inits = []int{(top + 1) % size}
		}
		delays := make([]time.Duration, size)
		for p := range delays {
			delays[p] = time.Duration(rnd.IntN(8)) * T / 2
		}
		for _, spec := range specs {
			t.Run(fmt.Sprintf("seed=%d/%s", seed, spec), func(t *testing.T) {
				n := newNet(t, spec, nil, ids...)
				if crash {
					n.Crash(top)
					for p := range size {
						if slices.Contains(inits, p) {
							n.At(0, func() { n.Suspect(p, top) })
						} else if p != top {
							n.At(delays[p], func() { n.Suspect(p, top) })
						}
					}
				}
				for _, p := range inits {
					n.At(0, func() { n.Initiate(p) })
				}
				n.Stabilize(500 * T)
				run{n: n}.correct(t)
			})
		}
	}
}
