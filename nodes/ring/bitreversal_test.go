package ring_test

import (
	"math"
	"math/bits"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// bitReversal is the ring of the lower-bound proofs (Attiya & Welch, ch.
// 3), as `--ids bit-reversal` places it for N = 2^k: position i holds
// rev_k(i) + 1.
func bitReversal(n int) []nodes.Rank {
	k := bits.Len(uint(n - 1))
	rs := make([]nodes.Rank, n)
	for i := range rs {
		rs[i] = nodes.RankOf(bits.Reverse64(uint64(i))>>(64-k) + 1)
	}
	return rs
}

// ALGORITHMS.md, "lcr", on bit-reversal: N·log₂N/2 + 2N messages, so the
// ratio to N·log₂N, 1/2 + 2/log₂N, settles toward 1/2 from N = 64 to
// 65,536 (Θ(N log N), the lower bound's order); on the worst arrangement
// (descending) N(N+1)/2 + N, whose ratio to N²/2 tends to 1.
func TestLCRBitReversal(t *testing.T) {
	prev := 1.0
	for k := 6; k <= 16; k += 2 {
		n := 1 << k
		o := simulate(t, "lcr", bitReversal(n), trial.AllPositions(n), trial.Constant(T), 1)
		want := int64(n*k/2 + 2*n)
		if o.res.Messages != want || o.theory.Messages != want || o.turnaround != float64(2*n) {
			t.Fatalf("lcr bit-reversal N=%d: %d messages (theory %d) in %v T, want %d in %d T", n, o.res.Messages, o.theory.Messages, o.turnaround, want, 2*n)
		}
		ratio := float64(o.res.Messages) / float64(n*k)
		if ratio >= prev || math.Abs(ratio-0.5-2/float64(k)) > 1e-12 {
			t.Fatalf("lcr bit-reversal N=%d: messages/(N·log₂N) = %v after %v, want 1/2 + 2/log₂N, falling", n, ratio, prev)
		}
		prev = ratio
		t.Logf("N=%d: %d messages, %.4f·N·log₂N", n, o.res.Messages, ratio)
	}
	for _, n := range []int{64, 1024} {
		o := simulate(t, "lcr", descending(n), trial.AllPositions(n), trial.Constant(T), 1)
		if want := int64(n*(n+1)/2 + n); o.res.Messages != want {
			t.Fatalf("lcr descending N=%d: %d messages, want %d", n, o.res.Messages, want)
		}
		t.Logf("N=%d descending: %d messages, %.4f·N²/2", n, o.res.Messages, float64(o.res.Messages)/float64(n*n/2))
	}
}

// The bit-reversal figure is for that arrangement only: a rotation of it,
// or a ring that is not a power of two, has no closed form here.
func TestLCRBitReversalOnly(t *testing.T) {
	lcr, _, err := nodes.Lookup("lcr")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		rs   []nodes.Rank
	}{{"rotated", rotated(bitReversal(16), 3)}, {"N=6", bitReversal(8)[:6]}} {
		th := lcr.Theory(nodes.TheoryInput{N: len(c.rs), Ranks: nodes.RanksOf(c.rs)})
		if th.Messages != 0 {
			t.Errorf("%s: theory %d messages, want none", c.what, th.Messages)
		}
	}
	th := lcr.Theory(nodes.TheoryInput{N: 8, Ranks: nodes.RanksFrom(1, 5, 3, 7, 2, 6, 4, 8)})
	if want := int64(8*3/2 + 16); th.Messages != want {
		t.Errorf("N=8 bit-reversal: theory %d, want %d", th.Messages, want)
	}
}
