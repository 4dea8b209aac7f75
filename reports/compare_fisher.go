package reports

import (
	"math"

	"gonum.org/v1/gonum/stat/combin"
)

// fisherExact is the two-sided Fisher exact test of a 2×2 table: k1 of n1
// trials have a property on one side, k2 of n2 on the other. Conditional on
// the margins, k1 follows the hypergeometric distribution of drawing n1 of
// the n1+n2 trials, k1+k2 of which have the property; the p-value is the
// total probability of the tables no more likely than the observed one (the
// method of R's fisher.test, with its relative tolerance of 1e-7 so that
// tables as likely as the observed one up to rounding count).
//
// The hypergeometric probabilities come from gonum's
// combin.LogGeneralizedBinomial (log C(n, k) through the log-gamma
// function); gonum has no hypergeometric distribution of its own.
func fisherExact(k1, n1, k2, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	n, k := n1+n2, k1+k2
	logC := func(a, b int) float64 { return combin.LogGeneralizedBinomial(float64(a), float64(b)) }
	logTotal := logC(n, n1)
	logP := func(x int) float64 { return logC(k, x) + logC(n-k, n1-x) - logTotal }
	obs := logP(k1)
	p := 0.0
	for x := max(0, k-n2); x <= min(k, n1); x++ {
		if lp := logP(x); lp <= obs+math.Log1p(1e-7) {
			p += math.Exp(lp)
		}
	}
	return math.Min(1, p)
}
