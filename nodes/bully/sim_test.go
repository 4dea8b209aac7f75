package bully_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/bully"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// The figures of ALGORITHMS.md on the simulator, with its own crash-at-start
// and default perfect detector (the initiator suspects the crashed process at
// time 0, everyone else 10T later), and Theory checked against each run.

const T = time.Millisecond

var sizes = []int{3, 5, 8, 16, 33}

func ranksOf(ids []uint64) []nodes.Rank {
	rs := make([]nodes.Rank, len(ids))
	for i, id := range ids {
		rs[i] = nodes.RankOf(id)
	}
	return rs
}

// shuffledIDs returns 1..n in a random order drawn from seed.
func shuffledIDs(n int, seed uint64) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	rand.New(rand.NewPCG(seed, 3)).Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}

// normalWatch counts moments when two processes in Normal disagree on the
// leader (ALGORITHMS.md: the two-phase invariant).
type normalWatch struct {
	phase      map[int]string
	leader     map[int]nodes.Rank
	violations int
}

func (w *normalWatch) Kinds() trial.Kinds {
	return trial.KindsOf(trial.EvDecide, trial.EvCrash, trial.EvPhase)
}

func (w *normalWatch) Event(e *trial.Event) {
	p := int(e.P)
	switch e.Kind {
	case trial.EvDecide:
		w.leader[p] = e.Leader
		w.check()
	case trial.EvCrash:
		delete(w.phase, p)
	case trial.EvPhase:
		w.phase[p] = e.Phase
		w.check()
	}
}

func (w *normalWatch) check() {
	var seen nodes.Rank
	for p, ph := range w.phase {
		l, ok := w.leader[p]
		if ph != nodes.PhaseNormal || !ok {
			continue
		}
		if seen.IsZero() {
			seen = l
		} else if l != seen {
			w.violations++
			return
		}
	}
}

type measured struct {
	res        *trial.Record
	byKind     map[string]int64
	turnaround float64
	theory     nodes.Theory
}

// simTrial runs spec on ids with one initiator, the highest crashed at the
// start when crash is set, and checks the outcome: every live process ends
// deciding the highest live process, and two-phase keeps its invariant.
func simTrial(t *testing.T, spec string, ids []uint64, initiator int, crash bool) measured {
	t.Helper()
	alg, variant, err := nodes.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	top := slices.Index(ids, slices.Max(ids))
	cfg := trial.Config{
		Algorithm:  alg,
		Variant:    variant,
		Ranks:      nodes.RanksOf(ranksOf(ids)),
		Initiators: []int{initiator},
		Latency:    trial.Constant(T),
		Seed:       1,
	}
	in := nodes.TheoryInput{Variant: variant, N: len(ids), Ranks: cfg.Ranks, Initiators: cfg.Initiators}
	if crash {
		cfg.Faults = []trial.Fault{trial.CrashFault(top, trial.When{Trigger: trial.AtStart})}
		in.Crashed = []int{top}
	}
	w := &normalWatch{phase: map[int]string{}, leader: map[int]nodes.Rank{}}
	cfg.Events = w
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Quiescent {
		t.Fatalf("run did not come to rest by %v", res.End)
	}
	want := nodes.RankOf(slices.Max(ids))
	if crash {
		want = nodes.RankOf(slices.Max(ids) - 1)
	}
	for p, d := range res.Decisions.All() {
		if res.Alive[p] && (d.Count == 0 || d.Leader != want) {
			t.Fatalf("process %d (id %d) decided %v (%d times), want %v", p, ids[p], d.Leader, d.Count, want)
		}
	}
	if w.violations > 0 {
		t.Fatalf("%d times two processes in Normal disagreed", w.violations)
	}
	return measured{
		res:        res,
		byKind:     res.MessagesByKind(),
		turnaround: float64(res.LastElection-res.FirstInitiation) / float64(T),
		theory:     alg.Theory(in),
	}
}

func (m measured) expect(t *testing.T, want map[string]int64, turnaround float64) {
	t.Helper()
	for k, v := range m.byKind {
		if v != want[k] {
			t.Errorf("%s sent %d, want %d (all: %v)", k, v, want[k], m.byKind)
		}
	}
	for k, v := range want {
		if m.byKind[k] != v {
			t.Errorf("%s sent %d, want %d (all: %v)", k, m.byKind[k], v, m.byKind)
		}
	}
	if m.turnaround != turnaround {
		t.Errorf("turnaround %vT, want %vT", m.turnaround, turnaround)
	}
	if m.theory.Messages != m.res.Messages || m.theory.Turnaround != m.turnaround {
		t.Errorf("theory %d messages, %vT; measured %d, %vT", m.theory.Messages, m.theory.Turnaround, m.res.Messages, m.turnaround)
	}
}

// ALGORITHMS.md, "bully" and "bully with announce: two-phase" (see TestTextbookCrash for the fake
// network's version).
func TestSimTextbookCrash(t *testing.T) {
	for _, n := range sizes {
		ids := shuffledIDs(n, uint64(n))
		lowest, second := slices.Index(ids, 1), slices.Index(ids, uint64(n-1))
		N := int64(n)
		t.Run(fmt.Sprintf("N=%d/lowest", n), func(t *testing.T) {
			classic := simTrial(t, "bully", ids, lowest, true)
			classic.expect(t, map[string]int64{"ELECTION": N * (N - 1) / 2, "OK": (N - 1) * (N - 2) / 2, "COORDINATOR": N - 2}, 4)
			if got := classic.res.TimeoutsByKind(); got["T1"] != 1 || got["T2"] != 0 {
				t.Errorf("timeouts %v, want T1 once (the second-highest's) and no T2", got)
			}
			two := simTrial(t, "bully/two-phase", ids, lowest, true)
			two.expect(t, map[string]int64{"ELECTION": N * (N - 1) / 2, "OK": (N - 1) * (N - 2) / 2, "COORDINATOR": N - 2, "HALT": N - 2, "ACK": N - 2}, 6)
			if d := two.res.Messages - classic.res.Messages; d != 2*(N-2) {
				t.Errorf("two-phase costs %d more, want 2(N−2) = %d", d, 2*(N-2))
			}
		})
		t.Run(fmt.Sprintf("N=%d/second-highest", n), func(t *testing.T) {
			classic := simTrial(t, "bully", ids, second, true)
			classic.expect(t, map[string]int64{"COORDINATOR": N - 2}, 1)
			two := simTrial(t, "bully/two-phase", ids, second, true)
			two.expect(t, map[string]int64{"COORDINATOR": N - 2, "HALT": N - 2, "ACK": N - 2}, 3)
			if d := two.res.Messages - classic.res.Messages; d != 2*(N-2) {
				t.Errorf("two-phase costs %d more, want 2(N−2) = %d", d, 2*(N-2))
			}
		})
	}
}

// Every configuration Theory covers, on the simulator: every algorithm and
// variant, every initiator, nobody or the highest crashed.
func TestSimTheory(t *testing.T) {
	for _, spec := range []string{"bully/classic", "bully/two-phase", "multicast/agree", "multicast/no-agree"} {
		for _, n := range sizes {
			ids := shuffledIDs(n, uint64(11*n))
			top := slices.Index(ids, uint64(n))
			for init := range n {
				for _, crash := range []bool{false, true} {
					if crash && init == top {
						continue
					}
					t.Run(fmt.Sprintf("%s/N=%d/init=%d/crash=%v", spec, n, ids[init], crash), func(t *testing.T) {
						m := simTrial(t, spec, ids, init, crash)
						if m.theory.Messages == 0 {
							t.Fatalf("no theory for a covered configuration")
						}
						if m.theory.Messages != m.res.Messages || m.theory.Turnaround != m.turnaround {
							t.Errorf("theory %d messages, %vT; measured %d %v, %vT", m.theory.Messages, m.theory.Turnaround, m.res.Messages, m.byKind, m.turnaround)
						}
					})
				}
			}
		}
	}
}

// The runtime's budget: bully's worst case at N = 1000 (the lowest initiates,
// nobody crashed) is about 2.5 million messages.
func BenchmarkBullyWorstCase(b *testing.B) {
	for _, spec := range []string{"bully/classic", "bully/two-phase", "multicast/agree"} {
		b.Run(spec, func(b *testing.B) {
			alg, variant, err := nodes.Lookup(spec)
			if err != nil {
				b.Fatal(err)
			}
			ids := make([]uint64, 1000)
			for i := range ids {
				ids[i] = uint64(i + 1)
			}
			cfg := trial.Config{Algorithm: alg, Variant: variant, Ranks: nodes.RanksOf(ranksOf(ids)), Initiators: []int{0}, Latency: trial.Constant(T), Seed: 1}
			var msgs int64
			for b.Loop() {
				res, err := sim.Run(cfg)
				if err != nil {
					b.Fatal(err)
				}
				msgs += res.Messages
			}
			b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
			b.ReportMetric(float64(msgs)/float64(b.N), "msgs/run")
		})
	}
}

// Under jittered latency (uniform in [T/2, 3T/2]) with several initiators and
// the highest crashed or not, every algorithm elects the highest live process
// everywhere once its timers outlast the worst round trip (3T). With the
// defaults (2T) they need not: a lower process that hears no answer in time
// wins, which is what ALGORITHMS.md asks the checker to catch.
func TestSimJitterWithLongTimers(t *testing.T) {
	long := map[string]nodes.Params{
		"bully":     {"t1": "3.1T", "t2": "10T", "ack-wait": "3.1T"},
		"multicast": {"timeout": "3.1T"},
	}
	for _, spec := range []string{"bully/classic", "bully/two-phase", "multicast/agree", "multicast/no-agree"} {
		alg, variant, err := nodes.Lookup(spec)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(60) {
			r := rand.New(rand.NewPCG(seed, 9))
			n := 3 + r.IntN(20)
			ids := shuffledIDs(n, seed)
			top := slices.Index(ids, uint64(n))
			crash := r.IntN(2) == 0
			var inits []int
			for p := range n {
				if r.IntN(4) == 0 && !(crash && p == top) {
					inits = append(inits, p)
				}
			}
			if len(inits) == 0 {
				inits = []int{(top + 1) % n}
			}
			cfg := trial.Config{
				Algorithm: alg, Variant: variant, Params: long[alg.Name],
				Ranks: nodes.RanksOf(ranksOf(ids)), Initiators: inits, Seed: seed,
				Latency: trial.Uniform{Lo: T / 2, Hi: 3 * T / 2},
			}
			want := nodes.RankOf(uint64(n))
			if crash {
				cfg.Faults = []trial.Fault{trial.CrashFault(top, trial.When{Trigger: trial.AtStart})}
				want = nodes.RankOf(uint64(n - 1))
			}
			w := &normalWatch{phase: map[int]string{}, leader: map[int]nodes.Rank{}}
			cfg.Events = w
			res, err := sim.Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for p, d := range res.Decisions.All() {
				if res.Alive[p] && (d.Count == 0 || d.Leader != want) {
					t.Fatalf("%s seed %d: process %d (id %d) decided %v, want %v", spec, seed, p, ids[p], d.Leader, want)
				}
			}
			if !res.Quiescent || w.violations > 0 {
				t.Fatalf("%s seed %d: quiescent %v, %d Normal disagreements", spec, seed, res.Quiescent, w.violations)
			}
		}
	}
}

// ALGORITHMS.md, bully: "T1 = 2D, T2 = 5D ... an ELECTION less than `settle`
// (2D) after a COORDINATOR starts nothing". Under jitter the defaults keep
// the fault-free election at O(N²) messages and elect the highest everywhere;
// the textbook rule (settle=0) with T1 = 2T, shorter than the longest round
// trip, cascades (Θ(N⁴)) and elects lower processes while higher ones live.
func TestSimBoundedDelayDefaults(t *testing.T) {
	const n = 24
	lat := trial.Uniform{Lo: T, Hi: 5 * T}
	run := func(params nodes.Params, seed uint64) (msgs, t1 int64, violations int) {
		alg, _, err := nodes.Lookup("bully")
		if err != nil {
			t.Fatal(err)
		}
		ids := shuffledIDs(n, seed)
		cfg := trial.Config{
			Algorithm: alg, Params: params, Ranks: nodes.RanksOf(ranksOf(ids)), Seed: seed, Latency: lat,
			Initiators: []int{slices.Index(ids, 1)},
		}
		c := check.New(cfg.Ranks)
		cfg.Events = c
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		v := c.Finish(&res.Decisions, res.Quiescent, res.End)
		if !v.Live || v.Leader != nodes.RankOf(n).String() {
			t.Fatalf("seed %d %v: live %v, leader %q; want the highest everywhere", seed, params, v.Live, v.Leader)
		}
		return res.Messages, res.TimeoutsByKind()["T1"], v.Violations
	}
	var cascade int64
	var violations int
	for seed := range uint64(12) {
		msgs, t1, vs := run(nil, seed)
		if msgs > 3*n*n || t1 != 0 || vs != 0 {
			t.Errorf("defaults, seed %d: %d messages (want ≤ 3N² = %d), %d T1 expirations, %d safety violations", seed, msgs, 3*n*n, t1, vs)
		}
		msgs, _, vs = run(nodes.Params{"t1": "2T", "settle": "0"}, seed)
		cascade += msgs
		violations += vs
	}
	if cascade < 12*20*n*n {
		t.Errorf("textbook rule under jitter: %d messages over 12 trials, want the cascade (> 20N² each)", cascade)
	}
	if violations == 0 {
		t.Error("textbook rule with T1 = 2T under jitter: no safety violation in 12 trials, want the early winners the checker must catch")
	}
}
