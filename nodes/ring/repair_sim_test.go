package ring_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// Ring repair in the simulator, ALGORITHMS.md, "Ring repair": "With a perfect
// detector this restores liveness after crashes", as extended in
// doc.go's "Ring repair" (run numbers and a new run on every change of
// route).

var repaired = []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs"}

// crashTrial runs one trial with crashes and a detector, watching every
// decision as it happens.
func crashTrial(t *testing.T, name string, rs []nodes.Rank, initiators []int, lat trial.Latency, seed uint64, det trial.Detector, crashes ...trial.Crash) (*trial.Record, *watch) {
	t.Helper()
	alg, _, err := nodes.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	w := newWatch(rs)
	res, err := sim.Run(trial.Config{Algorithm: alg, Ranks: rs, Initiators: initiators, Latency: lat, Seed: seed,
		Crashes: crashes, Detector: det, Events: w})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res, w
}

// watch is the correctness check of ALGORITHMS.md ("The reference model"),
// kept here rather than borrowed from workloads so that this package's tests
// depend only on the simulator. Safety as the run goes: no process decides a
// leader while a process of higher rank is alive.
type watch struct {
	ranks []nodes.Rank
	alive []bool
	wrong []string
}

func newWatch(rs []nodes.Rank) *watch {
	w := &watch{ranks: rs, alive: make([]bool, len(rs))}
	for i := range w.alive {
		w.alive[i] = true
	}
	return w
}

// highest is the highest live rank.
func (w *watch) highest() nodes.Rank {
	var top nodes.Rank
	for i, r := range w.ranks {
		if w.alive[i] && top.Less(r) {
			top = r
		}
	}
	return top
}

func (w *watch) Kinds() trial.Kinds { return trial.KindsOf(trial.EvDecide, trial.EvCrash) }

func (w *watch) Event(e *trial.Event) {
	switch e.Kind {
	case trial.EvDecide:
		if top := w.highest(); e.Leader.Less(top) {
			w.wrong = append(w.wrong, fmt.Sprintf("at %v process %d decided %v while %v is alive", e.At, e.P, e.Leader, top))
		}
	case trial.EvCrash:
		w.alive[e.P] = false
	}
}

// repairedOK fails unless the run was safe, came to rest, and every live
// process's latest decision is the highest live process.
func repairedOK(t *testing.T, what string, res *trial.Record, w *watch) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s: %s; crashes %+v, %d messages", what, fmt.Sprintf(format, args...), res.Crashes, res.Messages)
	}
	if len(w.wrong) > 0 {
		fail("unsafe: %v", w.wrong)
	}
	if !res.Quiescent {
		fail("still busy at the deadline")
	}
	top := w.highest()
	for p, d := range res.Decisions {
		if res.Alive[p] && (d.Count == 0 || d.Leader != top) {
			fail("live process %d decided %v (%d decisions), want %v", p, d.Leader, d.Count, top)
		}
	}
}

// faultFreeMessages is the message count of the same trial without faults:
// the range over which "after k messages" crashes are interesting.
func faultFreeMessages(t *testing.T, name string, rs []nodes.Rank, initiators []int) int64 {
	t.Helper()
	return simulate(t, name, rs, initiators, trial.Constant(T), 1).res.Messages
}

// crashPoints are the values of k for "crash after k messages": every k
// over the first 3N+1 messages (each hop of a single run's ELECTION and
// ELECTED, the leader's decision among them), then a spread up to the end.
func crashPoints(n int, total int64) []int64 {
	var ks []int64
	for k := int64(1); k <= total; k++ {
		if k <= int64(3*n+1) || k%int64(max(1, n/2)) == 0 || k == total {
			ks = append(ks, k)
		}
	}
	return ks
}

// TestRepairRestoresLiveness: for ring, chang-roberts, ring-initiator, lcr
// and hs, on rings of 5, 8 and 17 in several arrangements and initiator sets
// (lcr and hs start every process), under a perfect detector with D = 1T
// and D = 10T, a crash of the would-be leader at the start, of the would-be leader after k messages for k over
// the whole election, of the leader at its first decision, and of a random
// other process at a random point of the election: every run is safe, comes
// to rest, and elects the highest live process, known by every live one.
func TestRepairRestoresLiveness(t *testing.T) {
	r := rand.New(rand.NewPCG(98, 107))
	for _, name := range repaired {
		for _, n := range []int{5, 8, 17} {
			arrangements := []struct {
				label string
				rs    []nodes.Rank
			}{{"ascending", ascending(n)}, {"descending", descending(n)}, {"random", shuffled(n, uint64(n)+5)}}
			for _, arr := range arrangements {
				rs := arr.rs
				top := maxPos(rs)
				sets := [][]int{{(top + 1) % n}, {top}, all(n), randomSubset(r, n)}
				if name == "lcr" || name == "hs" {
					sets = [][]int{nil} // every process starts (StartsAll)
				}
				for _, initiators := range sets {
					total := faultFreeMessages(t, name, rs, initiators)
					crashes := []trial.Crash{
						{Pos: top, When: trial.AtStart},
						{Pos: trial.CurrentLeader, When: trial.LeaderElected},
					}
					for _, k := range crashPoints(n, total) {
						crashes = append(crashes, trial.Crash{Pos: top, When: trial.AfterMessages, K: k})
					}
					for range 4 {
						other := (top + 1 + r.IntN(n-1)) % n
						crashes = append(crashes,
							trial.Crash{Pos: other, When: trial.AfterMessages, K: 1 + r.Int64N(total)},
							trial.Crash{Pos: other, When: trial.AtTime, At: time.Duration(r.Int64N(int64(3*n) * int64(T)))})
					}
					for _, d := range []time.Duration{T, 10 * T} {
						det := trial.Detector{Kind: "perfect", D: d}
						for _, c := range crashes {
							what := fmt.Sprintf("%s N=%d %s initiators %v D=%v crash %+v", name, n, arr.label, initiators, d, c)
							res, w := crashTrial(t, name, rs, initiators, trial.Constant(T), 1, det, c)
							repairedOK(t, what, res, w)
						}
					}
				}
			}
		}
	}
}

// TestRepairUnderRandomLatency: the same with a crash of the would-be
// leader or another process at a random instant, under every latency model,
// where messages overtake each other across links and a crash catches the
// election in every state.
func TestRepairUnderRandomLatency(t *testing.T) {
	r := rand.New(rand.NewPCG(103, 1))
	for k := range 300 {
		n := 3 + r.IntN(20)
		rs := randomRanks(r, n)
		top := maxPos(rs)
		lat := latencies[r.IntN(len(latencies))]
		pos := top
		if r.IntN(2) == 0 {
			pos = r.IntN(n)
		}
		crash := trial.Crash{Pos: pos, When: trial.AtTime, At: time.Duration(r.Int64N(int64(4*n) * int64(T)))}
		det := trial.Detector{Kind: "perfect", D: time.Duration(1+r.IntN(10)) * T}
		for _, name := range repaired {
			initiators := randomSubset(r, n)
			what := fmt.Sprintf("trial %d: %s N=%d ranks %v initiators %v latency %v D=%v crash %+v", k, name, n, rs, initiators, lat, det.D, crash)
			res, w := crashTrial(t, name, rs, initiators, lat, uint64(k), det, crash)
			repairedOK(t, what, res, w)
		}
	}
}

// TestRepairSeveralCrashes: doc.go's argument covers any finite number of
// crashes. Up to N−1 of them, at random instants, after random message
// counts, or of whoever is leader then, in quick succession under every
// latency model.
func TestRepairSeveralCrashes(t *testing.T) {
	r := rand.New(rand.NewPCG(103, 2))
	for k := range 300 {
		n := 3 + r.IntN(12)
		rs := randomRanks(r, n)
		lat := latencies[r.IntN(len(latencies))]
		var crashes []trial.Crash
		for range 1 + r.IntN(n-1) {
			switch r.IntN(3) {
			case 0:
				crashes = append(crashes, trial.Crash{Pos: r.IntN(n), When: trial.AtTime, At: time.Duration(r.Int64N(int64(4*n) * int64(T)))})
			case 1:
				crashes = append(crashes, trial.Crash{Pos: r.IntN(n), When: trial.AfterMessages, K: 1 + r.Int64N(int64(3*n))})
			default:
				crashes = append(crashes, trial.Crash{Pos: trial.CurrentLeader, When: trial.AfterMessages, K: 1 + r.Int64N(int64(6*n))})
			}
		}
		det := trial.Detector{Kind: "perfect", D: time.Duration(1+r.IntN(40)) * T / 4}
		for _, name := range repaired {
			initiators := randomSubset(r, n)
			what := fmt.Sprintf("trial %d: %s N=%d ranks %v initiators %v latency %v D=%v crashes %+v", k, name, n, rs, initiators, lat, det.D, crashes)
			res, w := crashTrial(t, name, rs, initiators, lat, uint64(k), det, crashes...)
			repairedOK(t, what, res, w)
		}
	}
}
