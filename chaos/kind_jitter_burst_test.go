package chaos_test

import (
	"testing"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// jitter-burst is uniform extra delay on [0, jitter]: J/2 ± J/2 of the
// latency effect, so on the reference ring every message of chang-roberts'
// worst case (3N−1 of them, one after another) takes between T and T+J.
func TestJitterBurst(t *testing.T) {
	scs, err := chaos.Parse("burst.yaml", []byte("name: burst\nalgorithms: [chang-roberts]\nfaults:\n  - {kind: jitter-burst, at: start, jitter: 4T, for: 1000T}\n"))
	if err != nil {
		t.Fatal(err)
	}
	const T = time.Millisecond
	f := scs[0].Faults[0].Compile(T)
	if f.Link != (trial.Delay{Latency: 2 * T, Jitter: 2 * T}) {
		t.Fatalf("compiles to %s %+v, want delay 2ms ± 2ms", f.What(), f.Link)
	}
	alg, _, err := nodes.Lookup("chang-roberts")
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	ranks := make([]nodes.Rank, n)
	for i := range ranks {
		ranks[i] = nodes.RankOf(uint64(i + 1))
	}
	turnaround := func(seed uint64, faults ...trial.Fault) time.Duration {
		res, err := sim.Run(trial.Config{Algorithm: alg, Ranks: nodes.RanksOf(ranks), Initiators: []int{0}, Latency: trial.Constant(T), Seed: seed, Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		if res.Messages != 3*n-1 {
			t.Fatalf("%d messages, want 3N−1 = %d: jitter must not change the count", res.Messages, 3*n-1)
		}
		return res.LastElection - res.FirstInitiation
	}
	hops := time.Duration(3*n - 1)
	if got := turnaround(1); got != hops*T {
		t.Fatalf("fault-free turnaround %v, want (3N−1)T", got)
	}
	a, b := turnaround(7, f), turnaround(7, f)
	if a != b {
		t.Fatalf("same seed, turnarounds %v and %v", a, b)
	}
	// 47 hops of T + U[0, 4T]: the mean is 141T; far from both bounds.
	if a <= hops*T+hops*T/2 || a >= hops*(T+4*T)-hops*T/2 {
		t.Fatalf("turnaround %v, want well inside ((3N−1)T, (3N−1)5T)", a)
	}
}
