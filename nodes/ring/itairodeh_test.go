package ring_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// tieCount is P(c | m): of m active processes drawing ids uniformly from
// 1..k, exactly c draw the largest id drawn, Σ_j C(m,c)·(1/k)^c·((j−1)/k)^(m−c)
// over the largest id j (ALGORITHMS.md, "itai-rodeh").
func tieCount(m, c, k int) float64 {
	binom := 1.0
	for i := range c {
		binom = binom * float64(m-i) / float64(i+1)
	}
	p := 0.0
	for j := 1; j <= k; j++ {
		p += binom * math.Pow(1/float64(k), float64(c)) * math.Pow(float64(j-1)/float64(k), float64(m-c))
	}
	return p
}

// phases is the closed form of ALGORITHMS.md, "itai-rodeh": the mean and
// variance of the number of rounds from m active processes, by the
// recurrences Φ(m) = 1 + Σ_{c≥2} P(c|m)·Φ(c) and, for the second moment,
// S(m) = 1 + 2·Σ_{c≥2} P(c|m)·Φ(c) + Σ_{c≥2} P(c|m)·S(c), each solved for
// its own term (c = m).
func phases(m, k int) (mean, variance float64) {
	phi, s := make([]float64, m+1), make([]float64, m+1)
	for a := 2; a <= m; a++ {
		var sumPhi, sumS float64
		for c := 2; c < a; c++ {
			sumPhi += tieCount(a, c, k) * phi[c]
			sumS += tieCount(a, c, k) * s[c]
		}
		self := tieCount(a, a, k)
		phi[a] = (1 + sumPhi) / (1 - self)
		s[a] = (1 + 2*(sumPhi+self*phi[a]) + sumS) / (1 - self)
	}
	if m == 1 {
		return 1, 0
	}
	return phi[m], s[m] - phi[m]*phi[m]
}

// roundsSink records the largest round of any IR_ROUND sent: the trial's
// number of phases.
type roundsSink struct{ rounds int64 }

func (s *roundsSink) Event(e *trial.Event) {
	if e.Kind == trial.EvSend && e.Msg.Kind.String() == "IR_ROUND" {
		s.rounds = max(s.rounds, e.Msg.A)
	}
}
func (s *roundsSink) Kinds() trial.Kinds { return trial.KindsOf(trial.EvSend) }

// itaiRodehTrials runs trials of itai-rodeh on n processes with id space
// k under lat, failing unless every one elects exactly one leader that
// every process decided; it returns the phases of each.
func itaiRodehTrials(t testing.TB, n, k, trials int, lat trial.Latency) []int64 {
	t.Helper()
	alg, _, err := nodes.Lookup("itai-rodeh")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, trials)
	rs := nodes.RanksOf(ascending(n))
	for i := range trials {
		sink := &roundsSink{}
		res, err := sim.Run(trial.Config{Algorithm: alg, Ranks: rs, Initiators: trial.AllPositions(n), Latency: lat,
			Seed: uint64(i) + 1, Params: nodes.Params{"k": fmt.Sprint(k)}, Events: sink})
		if err != nil {
			t.Fatal(err)
		}
		leaders := map[nodes.Rank]int{}
		for _, d := range res.Decisions.All() {
			if d.Count != 1 {
				t.Fatalf("N=%d k=%d seed %d: a process decided %d times", n, k, i+1, d.Count)
			}
			leaders[d.Leader]++
		}
		if len(leaders) != 1 || !res.Quiescent {
			t.Fatalf("N=%d k=%d seed %d: leaders %v, at rest %v", n, k, i+1, leaders, res.Quiescent)
		}
		out[i] = sink.rounds
	}
	return out
}

// ALGORITHMS.md, "itai-rodeh": one leader in every trial, and the mean
// number of phases within the 99% interval of the closed form (2.576
// standard errors), at N = 16 with k = 2 and k = 16; the share of trials
// decided in one phase, P(1 | N), within its own 99% interval. 20,000
// trials each here; the 100,000 are BenchmarkItaiRodeh's
// (-benchtime 100000x).
func TestItaiRodehPhases(t *testing.T) {
	const n, trials = 16, 20000
	for _, k := range []int{2, 16} {
		// A process draws once per round it is active, from its own source,
		// and a round's outcome depends only on the draws: the phases of a
		// seed are the same under any latency, so random latency is run
		// for the one-leader check only, on fewer trials.
		itaiRodehTrials(t, n, k, trials/10, trial.Uniform{Lo: T, Hi: 5 * T})
		for _, lat := range []trial.Latency{trial.Constant(T)} {
			got := itaiRodehTrials(t, n, k, trials, lat)
			mean, variance := phases(n, k)
			var sum float64
			once := 0
			for _, r := range got {
				sum += float64(r)
				if r == 1 {
					once++
				}
			}
			avg := sum / trials
			if half := 2.576 * math.Sqrt(variance/trials); math.Abs(avg-mean) > half {
				t.Errorf("k=%d %v: mean phases %.4f, closed form %.4f ± %.4f", k, lat, avg, mean, half)
			}
			p1 := tieCount(n, 1, k)
			if share, half := float64(once)/trials, 2.576*math.Sqrt(p1*(1-p1)/trials); math.Abs(share-p1) > half {
				t.Errorf("k=%d %v: %.4f of trials in one phase, closed form %.4f ± %.4f", k, lat, share, p1, half)
			}
			t.Logf("k=%d %v: mean phases %.4f (closed form %.4f, sd %.4f)", k, lat, avg, mean, math.Sqrt(variance))
		}
	}
}

// The closed form by hand: two processes, k = 2, tie with probability
// 1/2 each round, so the phases are geometric with mean 2, variance 2.
func TestItaiRodehClosedFormByHand(t *testing.T) {
	if mean, variance := phases(2, 2); math.Abs(mean-2) > 1e-12 || math.Abs(variance-2) > 1e-12 {
		t.Errorf("N=2 k=2: mean %v variance %v, want 2 and 2", mean, variance)
	}
}

// BenchmarkItaiRodeh runs b.N trials at N = 16 for k = 2 and 16, each
// one checked for one leader, and reports the mean phases beside the
// closed form: the 100,000 trials are -benchtime 100000x.
func BenchmarkItaiRodeh(b *testing.B) {
	for _, k := range []int{2, 16} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			got := itaiRodehTrials(b, 16, k, b.N, trial.Uniform{Lo: T, Hi: 5 * T})
			var sum float64
			for _, r := range got {
				sum += float64(r)
			}
			mean, variance := phases(16, k)
			b.ReportMetric(sum/float64(b.N), "phases/trial")
			b.ReportMetric(mean, "closed-form-phases")
			b.ReportMetric(2.576*math.Sqrt(variance/float64(b.N)), "99%-half-width")
		})
	}
}
