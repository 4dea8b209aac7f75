package reports

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// The size of a change, with its 95% interval, beside the verdict: a
// reader judging a regression needs how much, not only whether (as
// benchstat and Criterion.rs give it). Medians: the Hodges–Lehmann
// estimate of the shift NEW − BASE, the median of every difference
// between a NEW value and a BASE value, with the distribution-free
// interval of Moses (1965) that inverts the Mann–Whitney test the verdict
// rests on: the k-th smallest and largest differences, k from the
// normal approximation of the U statistic's distribution. Shares: the
// difference of the two shares with Newcombe's hybrid score interval
// (1998, method 10), built from each side's Wilson interval, which keeps
// its coverage at 0/n and n/n where the Wald interval collapses.

// intervalLevel is the confidence of the intervals compare reports.
const intervalLevel = 0.95

// zLevel is the standard normal quantile of the two-sided intervalLevel.
var zLevel = distuv.UnitNormal.Quantile(1 - (1-intervalLevel)/2)

// hodgesLehmann returns the Hodges–Lehmann shift of new against base and
// its interval; interval is false when the samples are too small for one
// (k < 1).
func hodgesLehmann(base, new []float64) (est, lo, hi float64, interval bool) {
	b, x := slices.Clone(base), slices.Clone(new)
	slices.Sort(b)
	slices.Sort(x)
	n, m := float64(len(b)), float64(len(x))
	total := len(b) * len(x)
	if total == 0 {
		return 0, 0, 0, false
	}
	kth := func(k int) float64 { return kthDifference(b, x, k) }
	if total%2 == 1 {
		est = kth(total/2 + 1)
	} else {
		est = (kth(total/2) + kth(total/2+1)) / 2
	}
	k := int(math.Floor(n*m/2 - zLevel*math.Sqrt(n*m*(n+m+1)/12)))
	if k < 1 {
		return est, 0, 0, false
	}
	return est, kth(k), kth(total - k + 1), true
}

// kthDifference is the k-th smallest (from 1) of the differences x[j] −
// b[i] of two sorted samples, found by bisection on its value and then
// taken exactly, as the least difference above the bisection's lower end:
// counting the differences at most t takes a binary search per x, so
// neither the n·m differences nor their sort are ever held (a thousand
// trials a side would be a million).
func kthDifference(b, x []float64, k int) float64 {
	// first is the first i with x[j] − b[i] ≤ t: the differences fall as
	// i grows, so those from it on are at most t.
	first := func(xj, t float64) int {
		return sort.Search(len(b), func(i int) bool { return xj-b[i] <= t })
	}
	atMost := func(t float64) int {
		c := 0
		for _, xj := range x {
			c += len(b) - first(xj, t)
		}
		return c
	}
	lo, hi := x[0]-b[len(b)-1], x[len(x)-1]-b[0]
	if atMost(lo) >= k {
		return lo
	}
	for range 200 { // atMost(lo) < k ≤ atMost(hi)
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if atMost(mid) >= k {
			hi = mid
		} else {
			lo = mid
		}
	}
	// The k-th difference is the least one above lo.
	best := hi
	for _, xj := range x {
		if i := first(xj, lo); i > 0 {
			best = math.Min(best, xj-b[i-1])
		}
	}
	return best
}

// wilson is the Wilson score interval of k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	p, nf, z2 := float64(k)/float64(n), float64(n), zLevel*zLevel
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := zLevel / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// newcombe is the interval of the difference of shares nk/nn − bk/bn.
func newcombe(bk, bn, nk, nn int) (lo, hi float64) {
	p1, p2 := float64(bk)/float64(bn), float64(nk)/float64(nn)
	l1, u1 := wilson(bk, bn)
	l2, u2 := wilson(nk, nn)
	d := p2 - p1
	return d - math.Sqrt((p2-l2)*(p2-l2)+(u1-p1)*(u1-p1)), d + math.Sqrt((u2-p2)*(u2-p2)+(p1-l1)*(p1-l1))
}
