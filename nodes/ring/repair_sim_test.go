package ring_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// Ring repair in the simulator, ALGORITHMS.md, "Ring repair": "With a perfect
// detector this restores liveness after crashes", as extended in
// doc.go's "Ring repair" (run numbers and a new run on every change of
// route).

var repaired = []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs"}

// crashTrial runs one trial with crashes and a detector, judged as it
// happens by the checker (nodes/check).
func crashTrial(t *testing.T, name string, rs []nodes.Rank, initiators []int, lat trial.Latency, seed uint64, det trial.Detector, crashes ...trial.Fault) (*trial.Record, check.Verdict) {
	t.Helper()
	alg, _, err := nodes.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	c := check.New(nodes.RanksOf(rs))
	res, err := sim.Run(trial.Config{Algorithm: alg, Ranks: nodes.RanksOf(rs), Initiators: initiators, Latency: lat, Seed: seed,
		Faults: crashes, Detector: det, Events: c})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res, c.Finish(&res.Decisions, res.Quiescent, res.End)
}

// repairedOK fails unless the run was safe (no process decided a leader
// while a higher one was alive, live processes never believed different
// live leaders), came to rest, and every live process's latest decision is
// the highest live process (ALGORITHMS.md, "The reference model").
func repairedOK(t *testing.T, what string, res *trial.Record, v check.Verdict) {
	t.Helper()
	if v.Violations > 0 || !v.Correct || !v.Live {
		t.Fatalf("%s: violations %d, correct %v, live %v: %v; crashes %+v, %d messages",
			what, v.Violations, v.Correct, v.Live, v.Recorded, res.Crashes, res.Messages)
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
				sets := [][]int{{(top + 1) % n}, {top}, trial.AllPositions(n), randomSubset(r, n)}
				if name == "lcr" || name == "hs" {
					sets = [][]int{nil} // every process starts (StartsAll)
				}
				for _, initiators := range sets {
					total := faultFreeMessages(t, name, rs, initiators)
					crashes := []trial.Fault{trial.CrashFault(top, trial.When{Trigger: trial.AtStart}), trial.CrashFault(trial.CurrentLeader, trial.When{Trigger: trial.LeaderElected})}
					for _, k := range crashPoints(n, total) {
						crashes = append(crashes, trial.CrashFault(top, trial.When{Trigger: trial.AfterMessages, K: k}))
					}
					for range 4 {
						other := (top + 1 + r.IntN(n-1)) % n
						crashes = append(crashes,
							trial.CrashFault(other, trial.When{Trigger: trial.AfterMessages, K: 1 + r.Int64N(total)}),
							trial.CrashFault(other, trial.When{Trigger: trial.AtTime, At: time.Duration(r.Int64N(int64(3*n) * int64(T)))}))
					}
					for _, d := range []time.Duration{T, 10 * T} {
						det := trial.Detector{Kind: "perfect", D: d}
						for _, c := range crashes {
							what := fmt.Sprintf("%s N=%d %s initiators %v D=%v crash %+v", name, n, arr.label, initiators, d, c)
							res, v := crashTrial(t, name, rs, initiators, trial.Constant(T), 1, det, c)
							repairedOK(t, what, res, v)
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
		crash := trial.CrashFault(pos, trial.When{Trigger: trial.AtTime, At: time.Duration(r.Int64N(int64(4*n) * int64(T)))})
		det := trial.Detector{Kind: "perfect", D: time.Duration(1+r.IntN(10)) * T}
		for _, name := range repaired {
			initiators := randomSubset(r, n)
			what := fmt.Sprintf("trial %d: %s N=%d ranks %v initiators %v latency %v D=%v crash %+v", k, name, n, rs, initiators, lat, det.D, crash)
			res, v := crashTrial(t, name, rs, initiators, lat, uint64(k), det, crash)
			repairedOK(t, what, res, v)
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
		var crashes []trial.Fault
		for range 1 + r.IntN(n-1) {
			switch r.IntN(3) {
			case 0:
				crashes = append(crashes, trial.CrashFault(r.IntN(n), trial.When{Trigger: trial.AtTime, At: time.Duration(r.Int64N(int64(4*n) * int64(T)))}))
			case 1:
				crashes = append(crashes, trial.CrashFault(r.IntN(n), trial.When{Trigger: trial.AfterMessages, K: 1 + r.Int64N(int64(3*n))}))
			default:
				crashes = append(crashes, trial.CrashFault(trial.CurrentLeader, trial.When{Trigger: trial.AfterMessages, K: 1 + r.Int64N(int64(6*n))}))
			}
		}
		det := trial.Detector{Kind: "perfect", D: time.Duration(1+r.IntN(40)) * T / 4}
		for _, name := range repaired {
			initiators := randomSubset(r, n)
			what := fmt.Sprintf("trial %d: %s N=%d ranks %v initiators %v latency %v D=%v crashes %+v", k, name, n, rs, initiators, lat, det.D, crashes)
			res, v := crashTrial(t, name, rs, initiators, lat, uint64(k), det, crashes...)
			repairedOK(t, what, res, v)
		}
	}
}
