package reports

import "math"

// tCritical975 is the 0.975 quantile of Student's t distribution with df
// degrees of freedom: the factor of a two-sided 95% confidence interval of a
// mean from df+1 values. montanaflynn/stats has no t quantile, so it is
// computed here: by bisection on the exact finite-series CDF for integer df
// (Abramowitz & Stegun 26.7.3–4) up to cornishFisherFrom, and by the
// Cornish–Fisher expansion in 1/df beyond, where it is exact to double
// precision for all practical purposes.
func tCritical975(df int) float64 {
	if df < 1 {
		panic("reports: t quantile needs at least one degree of freedom")
	}
	if df >= cornishFisherFrom {
		return tCornishFisher(z975, float64(df))
	}
	// A(t|df) = P(|T| ≤ t) rises from 0 at t=0 to 1; find A = 0.95.
	lo, hi := 0.0, 1.0
	for tTwoSided(hi, df) < 0.95 {
		hi *= 2
	}
	for {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			return mid
		}
		if tTwoSided(mid, df) < 0.95 {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// cornishFisherFrom is where tCritical975 switches from the series, whose
// cost grows with df, to the expansion, whose error shrinks as df⁻⁵.
const cornishFisherFrom = 1000

// z975 is the 0.975 quantile of the standard normal distribution.
const z975 = 1.959963984540054

// tTwoSided is A(t|ν) = P(|T| ≤ t) for Student's t with ν degrees of freedom,
// from the finite series in θ = atan(t/√ν) of Abramowitz & Stegun 26.7.3
// (ν odd) and 26.7.4 (ν even).
func tTwoSided(t float64, nu int) float64 {
	theta := math.Atan(t / math.Sqrt(float64(nu)))
	s, c := math.Sincos(theta)
	c2 := c * c
	sum, term := 1.0, 1.0
	if nu%2 == 1 {
		if nu == 1 {
			return 2 * theta / math.Pi
		}
		for k := 1; k <= (nu-3)/2; k++ {
			term *= float64(2*k) / float64(2*k+1) * c2
			sum += term
		}
		return 2 / math.Pi * (theta + s*c*sum)
	}
	for k := 1; k <= (nu-2)/2; k++ {
		term *= float64(2*k-1) / float64(2*k) * c2
		sum += term
	}
	return s * sum
}

// tCornishFisher is the t quantile for the normal quantile z and ν degrees
// of freedom by Fisher's expansion to the ν⁻⁴ term (Abramowitz & Stegun
// 26.7.5).
func tCornishFisher(z, nu float64) float64 {
	z2 := z * z
	g1 := z * (z2 + 1) / 4
	g2 := z * ((5*z2+16)*z2 + 3) / 96
	g3 := z * (((3*z2+19)*z2+17)*z2 - 15) / 384
	g4 := z * ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) / 92160
	return z + (g1+(g2+(g3+g4/nu)/nu)/nu)/nu
}
