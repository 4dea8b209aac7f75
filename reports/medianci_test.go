package reports

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// refMedianRanks is the deliberately simple reference: exact binomial
// coefficients in big integers, and every symmetric pair of ranks tried from
// the outside in; the innermost pair whose coverage is still ≥ 95% wins.
func refMedianRanks(n int) (int, int, bool) {
	row := make([]*big.Int, n+1) // C(n, k)
	for k := range row {
		row[k] = new(big.Int).Binomial(int64(n), int64(k))
	}
	total := new(big.Int).Lsh(big.NewInt(1), uint(n))
	best := 0
	for l := 1; 2*l <= n+1; l++ {
		// coverage = P(l ≤ B ≤ n−l) = Σ C(n,k) / 2^n over k in [l, n−l];
		// coverage ≥ 95/100 ⇔ 100·Σ ≥ 95·2^n.
		sum := new(big.Int)
		for k := l; k <= n-l; k++ {
			sum.Add(sum, row[k])
		}
		lhs := new(big.Int).Mul(sum, big.NewInt(100))
		if lhs.Cmp(new(big.Int).Mul(total, big.NewInt(95))) >= 0 {
			best = l
		}
	}
	if best == 0 {
		return 0, 0, false
	}
	return best, n + 1 - best, true
}

func TestMedianCIRanksAgainstReference(t *testing.T) {
	for n := 0; n <= 150; n++ {
		l, u, ok := medianCIRanks(n)
		rl, ru, rok := refMedianRanks(n)
		if l != rl || u != ru || ok != rok {
			t.Errorf("n=%d: ranks (%d,%d,%v), reference (%d,%d,%v)", n, l, u, ok, rl, ru, rok)
		}
	}
}

// Published ranks (e.g. Conover, Practical Nonparametric Statistics, table
// A3; R: qbinom(0.025, n, 0.5)) for sizes where they reach 95%.
func TestMedianCIRanksKnown(t *testing.T) {
	for _, tc := range []struct{ n, l, u int }{
		{6, 1, 6}, {10, 2, 9}, {20, 6, 15}, {50, 18, 33}, {100, 40, 61},
	} {
		l, u, ok := medianCIRanks(tc.n)
		if !ok || l != tc.l || u != tc.u {
			t.Errorf("n=%d: (%d,%d,%v), want (%d,%d)", tc.n, l, u, ok, tc.l, tc.u)
		}
	}
	if _, _, ok := medianCIRanks(5); ok {
		t.Error("n=5 cannot reach 95%: 1-2/32 = 93.75%")
	}
	// Large n stays fast and near the normal approximation n/2 ± 0.98√n.
	l, u, ok := medianCIRanks(100000)
	if !ok || l < 49680 || l > 49700 || u != 100001-l {
		t.Errorf("n=100000: (%d,%d,%v)", l, u, ok)
	}
}

func TestMedianCIInStat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	xs := make([]float64, 20)
	for i := range xs {
		xs[i] = float64(rng.IntN(1000))
	}
	s := describe(xs)
	sorted := slices.Sorted(slices.Values(xs))
	if !s.MedianLow.IsSet() || s.MedianLow.Get() != sorted[5] || s.MedianHigh.Get() != sorted[14] {
		t.Errorf("n=20: interval [%v, %v], want x(6)=%v, x(15)=%v", s.MedianLow, s.MedianHigh, sorted[5], sorted[14])
	}
	if s.MedianLow.Get() > s.Median.Get() || s.MedianHigh.Get() < s.Median.Get() {
		t.Errorf("interval [%v, %v] does not hold the median %v", s.MedianLow.Get(), s.MedianHigh.Get(), s.Median.Get())
	}
	if s := describe(xs[:5]); s.MedianLow.IsSet() || s.MedianHigh.IsSet() {
		t.Errorf("5 values: interval should be unset, got %+v", s)
	}
}
