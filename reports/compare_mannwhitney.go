package reports

import (
	"math"
	"slices"
)

// MannWhitney is the result of a two-sided Mann–Whitney U test (the Wilcoxon
// rank-sum test) of two samples.
type MannWhitney struct {
	U     float64 // U of the first sample: pairs (x, y) with x > y, ties counting ½
	P     float64 // two-sided p-value
	Exact bool    // P from the exact permutation distribution, not the normal approximation
}

// exactMaxN bounds the pooled size for which mannWhitney computes the exact
// distribution. Up to it the count of rank arrangements, C(n, n1) ≤
// C(50, 25) ≈ 1.3·10¹⁴, is an exact float64 integer and the table costs a few
// million additions; beyond it the normal approximation is within a few
// thousandths of the exact p.
const exactMaxN = 50

// mannWhitney tests whether xs and ys come from the same distribution
// against the two-sided alternative that one tends to be larger.
//
// Values are ranked together, tied values sharing their mean rank. For a
// pooled size up to exactMaxN the p-value is exact: the share of all
// C(n1+n2, n1) ways of drawing the first sample's ranks from the pooled
// (mid)ranks whose rank sum lies at least as far from its mean as the
// observed one. This is the permutation distribution conditional on the
// ties, so ties need no correction. Larger samples use the normal
// approximation of U with the tie correction of the variance and a
// continuity correction of ½: the method of R's wilcox.test(exact = FALSE,
// correct = TRUE).
func mannWhitney(xs, ys []float64) MannWhitney {
	n1, n2 := len(xs), len(ys)
	if n1 == 0 || n2 == 0 {
		return MannWhitney{P: 1, Exact: true}
	}
	n := n1 + n2
	ranks2, ties := doubledRanks(xs, ys)
	var r1x2 int64 // twice the rank sum of xs
	for _, r := range ranks2[:n1] {
		r1x2 += r
	}
	u := float64(r1x2)/2 - float64(n1*(n1+1))/2
	if n <= exactMaxN {
		return MannWhitney{U: u, P: exactRankSumP(ranks2, n1, r1x2), Exact: true}
	}
	mu := float64(n1) * float64(n2) / 2
	nf := float64(n)
	variance := float64(n1) * float64(n2) / 12 * ((nf + 1) - ties/(nf*(nf-1)))
	if variance <= 0 {
		return MannWhitney{U: u, P: 1}
	}
	z := (math.Abs(u-mu) - 0.5) / math.Sqrt(variance)
	if z < 0 {
		z = 0
	}
	return MannWhitney{U: u, P: math.Min(1, math.Erfc(z/math.Sqrt2))}
}

// doubledRanks returns twice the midrank of every value of xs then ys (so
// ranks stay integers), and Σ(t³−t) over the groups of t tied values.
func doubledRanks(xs, ys []float64) ([]int64, float64) {
	n := len(xs) + len(ys)
	type item struct {
		v float64
		i int
	}
	items := make([]item, 0, n)
	for i, v := range xs {
		items = append(items, item{v, i})
	}
	for i, v := range ys {
		items = append(items, item{v, len(xs) + i})
	}
	slices.SortStableFunc(items, func(a, b item) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	ranks := make([]int64, n)
	ties := 0.0
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && items[hi].v == items[lo].v {
			hi++
		}
		// Ranks lo+1 … hi share their mean (lo+1+hi)/2; doubled: lo+1+hi.
		for k := lo; k < hi; k++ {
			ranks[items[k].i] = int64(lo + 1 + hi)
		}
		t := float64(hi - lo)
		ties += t*t*t - t
		lo = hi
	}
	return ranks, ties
}

// exactRankSumP is the two-sided permutation p-value of the rank sum of n1
// values drawn from the pooled doubled ranks: the probability of a sum at
// least as far from its mean n1·(n+1) (doubled) as observed. ways[k][s]
// counts the subsets of k ranks seen so far with doubled sum s.
func exactRankSumP(ranks2 []int64, n1 int, observed int64) float64 {
	var maxSum int64
	for _, r := range ranks2 {
		maxSum += r
	}
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	var reach int64 // largest sum reachable so far
	for _, r := range ranks2 {
		reach += r
		for k := n1; k >= 1; k-- {
			prev, cur := ways[k-1], ways[k]
			for s := reach; s >= r; s-- {
				if prev[s-r] != 0 {
					cur[s] += prev[s-r]
				}
			}
		}
	}
	mean2 := int64(n1) * int64(len(ranks2)+1) // doubled mean rank sum
	dist := abs64(observed - mean2)
	var total, tail float64
	for s, w := range ways[n1] {
		if w == 0 {
			continue
		}
		total += w
		if abs64(int64(s)-mean2) >= dist {
			tail += w
		}
	}
	return tail / total
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// minAchievableP is the smallest two-sided p-value any pair of samples of
// sizes n1 and n2 can give: complete separation without ties, 2/C(n1+n2, n1)
// (1 when either is empty).
func minAchievableP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	// C(n1+n2, n1) as a product; it only has to be compared with 2/α, so
	// stop once it is large.
	c := 1.0
	for i := 1; i <= min(n1, n2); i++ {
		c = c * float64(max(n1, n2)+i) / float64(i)
		if c > 1e12 {
			break
		}
	}
	return math.Min(1, 2/c)
}

// MinSamples is the least number of samples per side with which a two-sided
// Mann–Whitney test at level alpha can reach significance at all: the
// smallest k with 2/C(2k, k) ≤ alpha (4 for alpha = 0.05, since 3 and 3
// values give at best p = 2/20 = 0.1).
// Alpha must be in (0, 1); a level below 10⁻¹¹ gives the cap of 100.
func MinSamples(alpha float64) int {
	for k := 1; k < 100; k++ {
		if minAchievableP(k, k) <= alpha {
			return k
		}
	}
	return 100
}

// MannWhitneyTest is the two-sided Mann–Whitney U test of xs against ys,
// as compare runs it: for a test that compares two samples of its own
// (hunt's trials to a find, guided against uniform).
func MannWhitneyTest(xs, ys []float64) MannWhitney { return mannWhitney(xs, ys) }
