package reports

import (
	"math"
	"sync"
)

// medianCIAlpha is the error rate of the median's interval: 95% coverage.
const medianCIAlpha = 0.05

// medianCI is the distribution-free 95% confidence interval of the median of
// sorted, values in ascending order: the order statistics at the ranks
// medianCIRanks gives. Both are unset when sorted is too short for any pair
// to reach 95%.
func medianCI(sorted []float64) (lo, hi Opt[float64]) {
	l, u, ok := medianCIRanks(len(sorted))
	if !ok {
		return lo, hi
	}
	return Some(sorted[l-1]), Some(sorted[u-1])
}

// medianCIRanks returns the 1-based ranks l ≤ u of the order statistics
// x(l), x(u) that bound the median of n values with probability at least
// 95%, whatever the (continuous) distribution. The count B of values below
// the true median is binomial(n, ½), and P(x(l) ≤ median ≤ x(n+1−l)) =
// 1 − 2·P(B ≤ l−1), so l is the largest rank with P(B ≤ l−1) ≤ α/2: the
// binomial quantile, taken on the conservative side so the coverage is never
// below 95% (R's qbinom(0.025, n, 0.5) rank, which equals it unless that
// rank would undercover). ok is false for n < 6, where even the extreme
// values cover only 1 − 2^(1−n) < 95%.
func medianCIRanks(n int) (l, u int, ok bool) {
	if n < 1 {
		return 0, 0, false
	}
	if r, hit := medianRanks.Load(n); hit {
		if l = r.(int); l < 1 {
			return 0, 0, false
		}
		return l, n + 1 - l, true
	}
	defer func() { medianRanks.Store(n, l) }()
	cdf := 0.0
	for k := 0; k < n; k++ {
		cdf += binomialHalfPMF(n, k)
		if cdf > medianCIAlpha/2 {
			// P(B ≤ k) is too large: l−1 = k−1 is the largest that holds.
			l = k
			break
		}
	}
	if l < 1 {
		return 0, 0, false
	}
	return l, n + 1 - l, true
}

// medianRanks holds medianCIRanks's l by n: every metric of a summary's
// group asks for the same n, and the binomial sum takes n/2 steps of three
// logarithms of the gamma function (a quarter of a 50,000-trial run's
// summary, issue 42).
var medianRanks sync.Map

// binomialHalfPMF is P(B = k) for B binomial(n, ½), computed in logarithms
// so it neither overflows nor loses the small tail terms for large n.
func binomialHalfPMF(n, k int) float64 {
	ln, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lnk, _ := math.Lgamma(float64(n - k + 1))
	return math.Exp(ln - lk - lnk - float64(n)*math.Ln2)
}
