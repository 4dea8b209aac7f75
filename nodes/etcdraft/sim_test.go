package etcdraft_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	_ "github.com/electbench/electbench/nodes/etcdraft"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

const T = time.Millisecond

// simulate runs spec on n processes for the seed under a leader crash and
// returns the trial's event trace and the checker's verdict.
func simulate(t testing.TB, spec string, params nodes.Params, n int, seed uint64, deadline time.Duration, faults []trial.Fault) ([]byte, check.Verdict, *trial.Record) {
	t.Helper()
	alg, variant, err := nodes.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	ranks := make([]nodes.Rank, n)
	for i, id := range rand.New(rand.NewPCG(seed, 5)).Perm(n) {
		ranks[i] = nodes.RankOf(uint64(id + 1))
	}
	c := check.New(ranks)
	if err := c.WatchQuorum(alg, nodes.Config{Variant: variant, Params: params, N: n, T: T}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tr := trial.NewTrace(&buf)
	lat, err := trial.ParseLatency("uniform(0.5ms,1.5ms)")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(trial.Config{Algorithm: alg, Variant: variant, Params: params, Ranks: ranks, Latency: lat,
		Seed: seed, Deadline: deadline, Events: trial.Tee(tr, c), Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), c.Finish(res.Decisions, res.Quiescent, res.End), res
}

func crashLeader(after time.Duration) trial.Fault {
	return trial.Fault{Effect: trial.EffCrash, Name: "crash(leader)",
		Start:   trial.When{Trigger: trial.LeaderElected, Delay: after},
		Targets: func(v trial.View) []int { return []int{v.Leader()} }}
}

// The determinism the issue asks for, at the level of one trial: the same
// seed gives the same trace, event for event, whether trials run one after
// another or many at once on several goroutines (as --parallel runs them),
// and another seed gives another trace.
func TestSameSeedSameTraceWhateverTheParallelism(t *testing.T) {
	const seeds = 8
	sequential := make([][]byte, seeds)
	for s := range seeds {
		sequential[s], _, _ = simulate(t, "etcd-raft", nil, 5, uint64(s), 400*T, []trial.Fault{crashLeader(10 * T)})
	}
	for s := 1; s < seeds; s++ {
		if bytes.Equal(sequential[s], sequential[0]) {
			t.Fatalf("seeds 0 and %d gave the same trace: the seed does not reach etcd", s)
		}
	}
	parallel := make([][]byte, seeds)
	var wg sync.WaitGroup
	for s := range seeds {
		wg.Go(func() {
			parallel[s], _, _ = simulate(t, "etcd-raft", nil, 5, uint64(s), 400*T, []trial.Fault{crashLeader(10 * T)})
		})
	}
	wg.Wait()
	for s := range seeds {
		if !bytes.Equal(sequential[s], parallel[s]) {
			t.Errorf("seed %d: the trace differs when trials run in parallel", s)
		}
	}
}

// "After a leader crash elects again", for every variant, at N = 5 and 7;
// the checker finds no two leaders in a term and no minority leader.
func TestLeaderCrashReelects(t *testing.T) {
	for _, variant := range []string{"etcd", "plain", "pre-vote", "check-quorum"} {
		for _, n := range []int{5, 7} {
			t.Run(fmt.Sprintf("%s/%d", variant, n), func(t *testing.T) {
				for seed := range uint64(20) {
					_, v, res := simulate(t, "etcd-raft/"+variant, nil, n, seed, 600*T, []trial.Fault{crashLeader(20 * T)})
					if v.Violations > 0 {
						t.Fatalf("seed %d: %v", seed, v.Recorded)
					}
					if len(res.Crashes) != 1 || !res.Crashes[0].WasLeader {
						t.Fatalf("seed %d: crashes %+v, want the leader's", seed, res.Crashes)
					}
					if _, ok := v.Downtime(res.Crashes[0].At); !ok || !v.Live || !v.Correct {
						t.Fatalf("seed %d: no new leader after the crash at %v (live %v, correct %v, terms %+v)",
							seed, res.Crashes[0].At, v.Live, v.Correct, v.Terms)
					}
				}
			})
		}
	}
}
