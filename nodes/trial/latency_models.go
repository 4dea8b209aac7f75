package trial

import (
	"errors"
	"math"
	"math/rand/v2"
	"time"
)

// BoundQuantile is the quantile that stands for the delay bound D of a model
// whose latency has no largest value (normal, exponential): p99.9, so that
// about one message in a thousand outlasts a timeout written as a multiple of
// D. Garcia-Molina's bully assumes a known bound on delay; an unbounded model
// can only approximate one, and the row's d_s column says which D ran.
const BoundQuantile = 0.999

// z999 is the standard normal quantile at BoundQuantile: Φ⁻¹(0.999).
const z999 = 3.090232306167813

func init() {
	registerLatency("constant", 1, "constant(T): every message takes exactly T (the reference model)",
		func(a []time.Duration) (Latency, error) { return Constant(a[0]), nil })
	registerLatency("uniform", 2, "uniform(a,b): uniform on [a,b]",
		func(a []time.Duration) (Latency, error) {
			if a[1] < a[0] {
				return nil, errors.New("uniform(a,b) needs a ≤ b")
			}
			return Uniform{Lo: a[0], Hi: a[1]}, nil
		})
	registerLatency("normal", 2, "normal(mean,sd): normal, clamped at 0 (T is the nominal mean)",
		func(a []time.Duration) (Latency, error) { return Normal{MeanD: a[0], SD: a[1]}, nil })
	registerLatency("exponential", 1, "exponential(mean): exponential with the given mean",
		func(a []time.Duration) (Latency, error) { return Exponential{MeanD: a[0]}, nil })
}

// Constant is the reference model: every message takes exactly this long.
type Constant time.Duration

func (c Constant) Mean() time.Duration             { return time.Duration(c) }
func (c Constant) Bound() time.Duration            { return time.Duration(c) }
func (c Constant) Sample(*rand.Rand) time.Duration { return time.Duration(c) }
func (c Constant) Constant() bool                  { return true }
func (c Constant) String() string                  { return "constant(" + time.Duration(c).String() + ")" }

// Uniform draws uniformly from [Lo, Hi].
type Uniform struct{ Lo, Hi time.Duration }

func (u Uniform) Mean() time.Duration  { return (u.Lo + u.Hi) / 2 }
func (u Uniform) Bound() time.Duration { return u.Hi }
func (u Uniform) Sample(r *rand.Rand) time.Duration {
	return u.Lo + time.Duration(r.Int64N(int64(u.Hi-u.Lo)+1))
}
func (u Uniform) Constant() bool { return u.Lo == u.Hi }
func (u Uniform) String() string { return "uniform(" + u.Lo.String() + "," + u.Hi.String() + ")" }

// Normal draws from a normal distribution clamped at zero. T is the nominal
// mean; with SD much smaller than the mean the clamp never matters.
type Normal struct{ MeanD, SD time.Duration }

func (n Normal) Mean() time.Duration { return n.MeanD }

// Bound is the p99.9 of the clamped normal: mean + Φ⁻¹(0.999)·sd.
func (n Normal) Bound() time.Duration {
	return n.MeanD + time.Duration(math.Round(z999*float64(n.SD)))
}
func (n Normal) Sample(r *rand.Rand) time.Duration {
	return max(0, n.MeanD+time.Duration(r.NormFloat64()*float64(n.SD)))
}
func (n Normal) Constant() bool { return n.SD == 0 }
func (n Normal) String() string { return "normal(" + n.MeanD.String() + "," + n.SD.String() + ")" }

// Exponential draws from an exponential distribution with the given mean.
type Exponential struct{ MeanD time.Duration }

func (e Exponential) Mean() time.Duration { return e.MeanD }

// Bound is the p99.9 of the exponential: mean·ln(1/(1−0.999)) = mean·ln 1000.
func (e Exponential) Bound() time.Duration {
	return time.Duration(math.Round(-math.Log(1-BoundQuantile) * float64(e.MeanD)))
}
func (e Exponential) Sample(r *rand.Rand) time.Duration {
	return time.Duration(r.ExpFloat64() * float64(e.MeanD))
}
func (e Exponential) Constant() bool { return false }
func (e Exponential) String() string { return "exponential(" + e.MeanD.String() + ")" }
