package reports

import (
	"fmt"
	"slices"
	"strings"
)

// Multiple tests. A comparison runs a test for every group and metric,
// hundreds of them for a sweep, and at α = 0.05 each a run compared with
// itself under another seed would show a "significant" change in some of
// them by chance alone: of five such comparisons of the default sweep
// (75 groups, 525 tests), three failed on a message count. Compare
// therefore decides on Benjamini–Hochberg q-values over the comparison's
// tests (Benjamini and Hochberg, 1995): a change is significant when its q
// is at most α, which keeps the expected share of false verdicts among
// the verdicts at most α and, when nothing changed, the chance of any
// verdict at all at most α. A change that holds in many groups at once
// (every size of an algorithm) is found with far fewer trials than one
// alone, which must reach p ≤ α/m.
//
// The family is the tests that could reach α at all (Tarone, 1990;
// Gilbert, 2005, for the false discovery rate): a share test whose
// margins admit no table as extreme as α (every trial safe on both
// sides: one table, p = 1) is left out, as are the medians no test was
// run for (identical samples, too few trials). The one verdict that does
// not rest on a test, a safety violation new in NEW, stays a regression
// whatever its q.

// adjust sets the q-value of every change in the family, turns the
// verdicts whose q exceeds alpha into no change, and returns the size of
// the family.
func adjust(changes []Change, alpha float64) int {
	var family []int
	for i := range changes {
		if canReach(&changes[i], alpha) {
			family = append(family, i)
		}
	}
	ps := make([]float64, len(family))
	for j, i := range family {
		ps[j] = changes[i].P.Get()
	}
	qs := benjaminiHochberg(ps)
	m := len(family)
	for j, i := range family {
		ch := &changes[i]
		ch.Q = Some(qs[j])
		if ch.Verdict != Regression && ch.Verdict != Improvement || untested(ch) {
			continue
		}
		if qs[j] > alpha {
			ch.Verdict = NoChange
			ch.Reason = fmt.Sprintf("not significant among the %d tests that could be (p=%s, q=%s > %s)", m, fmtP(ch.P.Get()), fmtP(qs[j]), fmtP(alpha))
			continue
		}
		if r, ok := strings.CutSuffix(ch.Reason, ")"); ok { // "median +12.0% (p=0.0079)"
			ch.Reason = fmt.Sprintf("%s, q=%s)", r, fmtP(qs[j]))
		}
	}
	return m
}

// canReach says whether ch's test ran and could have given p ≤ alpha.
func canReach(ch *Change, alpha float64) bool {
	if !ch.P.IsSet() {
		return false
	}
	if ch.Kind != KindShare {
		return true // medians are tested only where minAchievableP ≤ α (judge)
	}
	return fisherMinP(ch.BaseCount, ch.BaseN, ch.NewCount, ch.NewN) <= alpha
}

// untested is a verdict that needs no test (judgeShare): NEW violated
// safety in a group whose BASE trials never did, or lost liveness or
// correctness in more than the threshold's share of its trials where
// every BASE trial had it (lostAll; its reason says so).
func untested(ch *Change) bool {
	if ch.Kind != KindShare || ch.BaseCount != ch.BaseN || ch.NewCount >= ch.NewN {
		return false
	}
	return ch.Metric == "safety" || strings.Contains(ch.Reason, "whatever q")
}

// fisherMinP is the least two-sided Fisher p-value a 2×2 table with the
// margins of (k1 of n1, k2 of n2) can have: that of one of the two
// extreme tables, where the hypergeometric probability is least.
func fisherMinP(k1, n1, k2, n2 int) float64 {
	k := k1 + k2
	lo, hi := max(0, k-n1), min(n2, k) // the second sample's count
	return min(fisherExact(k-lo, n1, lo, n2), fisherExact(k-hi, n1, hi, n2))
}

// benjaminiHochberg returns the q-values of p-values ps, in their order:
// q_(i) = min over j ≥ i of m·p_(j)/j for the ascending p_(1..m), at most 1
// (R's p.adjust(p, "BH")).
func benjaminiHochberg(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ps[a] < ps[b]:
			return -1
		case ps[a] > ps[b]:
			return 1
		}
		return 0
	})
	qs := make([]float64, m)
	least := 1.0
	for r := m; r >= 1; r-- {
		i := order[r-1]
		least = min(least, ps[i]*float64(m)/float64(r))
		qs[i] = least
	}
	return qs
}

// familyText names the family in a closing line: "the 12 tests", "the 1
// test".
func familyText(n int) string {
	if n == 1 {
		return "the 1 test"
	}
	return fmt.Sprintf("the %d tests", n)
}
