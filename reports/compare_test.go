package reports

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refExactP is the deliberately simple reference: enumerate every way of
// choosing which n1 of the pooled values belong to the first sample, and
// count the splits whose U is at least as far from n1·n2/2 as the observed
// one. U is counted pair by pair, ties as ½.
func refExactP(xs, ys []float64) float64 {
	pool := append(append([]float64(nil), xs...), ys...)
	n, n1 := len(pool), len(xs)
	uOf := func(a, b []float64) float64 {
		u := 0.0
		for _, x := range a {
			for _, y := range b {
				switch {
				case x > y:
					u++
				case x == y:
					u += 0.5
				}
			}
		}
		return u
	}
	mu := float64(n1*(n-n1)) / 2
	obs := math.Abs(uOf(xs, ys) - mu)
	var total, tail int
	for mask := 0; mask < 1<<n; mask++ {
		var a, b []float64
		for i := range n {
			if mask&(1<<i) != 0 {
				a = append(a, pool[i])
			} else {
				b = append(b, pool[i])
			}
		}
		if len(a) != n1 {
			continue
		}
		total++
		if math.Abs(uOf(a, b)-mu) >= obs-1e-9 {
			tail++
		}
	}
	return float64(tail) / float64(total)
}

func TestMannWhitneyExactAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		n1, n2 := 1+rng.IntN(7), 1+rng.IntN(7)
		levels := 2 + rng.IntN(12) // few levels: many ties
		draw := func(k, shift int) []float64 {
			xs := make([]float64, k)
			for j := range xs {
				xs[j] = float64(rng.IntN(levels) + shift)
			}
			return xs
		}
		xs, ys := draw(n1, 0), draw(n2, rng.IntN(3))
		got := mannWhitney(xs, ys)
		want := refExactP(xs, ys)
		if !got.Exact || math.Abs(got.P-want) > 1e-12 {
			t.Fatalf("case %d: %v vs %v: p=%v (exact %v), reference %v", i, xs, ys, got.P, got.Exact, want)
		}
	}
}

// Known values: R's wilcox.test on the Hollander & Wolfe example of its
// manual (W = 35, one-sided p = 0.1272, so two-sided 0.2544), and complete
// separation of 4 and 4 values (2/70).
func TestMannWhitneyKnown(t *testing.T) {
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	mw := mannWhitney(x, y)
	if mw.U != 35 || math.Abs(mw.P-0.2544) > 0.0001 || !mw.Exact {
		t.Errorf("Hollander & Wolfe: %+v, want U=35 p≈0.2544 exact", mw)
	}
	mw = mannWhitney([]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8})
	if math.Abs(mw.P-2.0/70) > 1e-15 || mw.U != 0 {
		t.Errorf("separated 4 vs 4: %+v, want p=2/70", mw)
	}
	if mw := mannWhitney([]float64{3, 3, 3}, []float64{3, 3, 3, 3}); mw.P != 1 {
		t.Errorf("all tied: p=%v, want 1", mw.P)
	}
}

// refNormalP is the textbook normal approximation written out naively:
// U by pairs, the tie term by counting equal values, continuity ½.
func refNormalP(xs, ys []float64) float64 {
	n1, n2 := float64(len(xs)), float64(len(ys))
	u := 0.0
	for _, x := range xs {
		for _, y := range ys {
			if x > y {
				u++
			} else if x == y {
				u += 0.5
			}
		}
	}
	pool := append(append([]float64(nil), xs...), ys...)
	count := map[float64]float64{}
	for _, v := range pool {
		count[v]++
	}
	tie := 0.0
	for _, t := range count {
		tie += t*t*t - t
	}
	n := n1 + n2
	sigma := math.Sqrt(n1 * n2 / 12 * ((n + 1) - tie/(n*(n-1))))
	z := math.Max(0, math.Abs(u-n1*n2/2)-0.5) / sigma
	return 2 * (1 - 0.5*(1+math.Erf(z/math.Sqrt2)))
}

func TestMannWhitneyNormalAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 50 {
		n1, n2 := 26+rng.IntN(80), 26+rng.IntN(80)
		xs, ys := make([]float64, n1), make([]float64, n2)
		for j := range xs {
			xs[j] = float64(rng.IntN(40))
		}
		for j := range ys {
			ys[j] = float64(rng.IntN(40) + rng.IntN(8))
		}
		got := mannWhitney(xs, ys)
		want := refNormalP(xs, ys)
		if got.Exact || math.Abs(got.P-want) > 1e-9 {
			t.Fatalf("case %d: p=%v exact=%v, reference %v", i, got.P, got.Exact, want)
		}
	}
	// Where both methods apply, the approximation is close to the exact p.
	xs := []float64{12, 15, 9, 20, 31, 17, 14, 22, 19, 25, 11, 16, 18, 21, 23, 13, 26, 24, 10, 28}
	ys := []float64{22, 27, 30, 19, 35, 29, 33, 26, 24, 38, 21, 31, 28, 36, 32, 25, 34, 23, 37, 40}
	if d := math.Abs(mannWhitney(xs, ys).P - refNormalP(xs, ys)); d > 0.002 {
		t.Errorf("exact and normal p differ by %v on 20 vs 20", d)
	}
}

func TestMinSamples(t *testing.T) {
	if got := MinSamples(0.05); got != 4 {
		t.Errorf("MinSamples(0.05) = %d, want 4: 3 vs 3 reach at best p=0.1", got)
	}
	if got := MinSamples(0.01); got != 5 {
		t.Errorf("MinSamples(0.01) = %d, want 5 (2/252 ≈ 0.0079)", got)
	}
	if p := minAchievableP(3, 3); p != 0.1 {
		t.Errorf("minAchievableP(3,3) = %v", p)
	}
	if p := minAchievableP(2, 20); math.Abs(p-2.0/231) > 1e-15 {
		t.Errorf("minAchievableP(2,20) = %v, want 2/231", p)
	}
}

// trialsOf makes k error-free trials of one group with the given messages,
// turnaround = messages/2 and decided = turnaround.
func trialsOf(alg string, nodes int, msgs ...int64) []Row {
	var rows []Row
	for i, m := range msgs {
		ta := float64(m) / 2
		rows = append(rows, Row{Algorithm: alg, Variant: "default", Runtime: "sim", Scenario: "adhoc",
			Nodes: nodes, Trial: i, Seed: uint64(i), Messages: m,
			TurnaroundT: Some(ta), DecidedT: Some(ta), Correct: true, Live: true})
	}
	return rows
}

func verdicts(c Comparison) map[string]Verdict {
	m := map[string]Verdict{}
	for _, ch := range c.Changes {
		m[ch.Algorithm+"/"+itoa(ch.Nodes)+"/"+ch.Metric] = ch.Verdict
	}
	return m
}

func TestCompare(t *testing.T) {
	base := append(trialsOf("lcr", 8, 44, 46, 44, 48, 44), trialsOf("hs", 8, 80, 84, 82, 86, 88)...)
	t.Run("identical", func(t *testing.T) {
		c := Compare(base, base, CompareOptions{Threshold: -1})
		for _, ch := range c.Changes {
			if ch.Verdict != NoChange {
				t.Errorf("%s: %s (%s)", ch.Name(), ch.Verdict, ch.Reason)
			}
		}
		var b bytes.Buffer
		if err := WriteCompareText(&b, c); err != nil {
			t.Fatal(err)
		}
		if lines := strings.Count(b.String(), "\n"); lines != 1 || !strings.Contains(b.String(), "no significant change") {
			t.Errorf("identical runs print only the closing line:\n%s", b.String())
		}
	})
	t.Run("doubled", func(t *testing.T) {
		doubled := append(trialsOf("lcr", 8, 88, 92, 88, 96, 88), trialsOf("hs", 8, 81, 84, 82, 86, 88)...)
		c := Compare(base, doubled, CompareOptions{Threshold: -1})
		v := verdicts(c)
		for _, m := range []string{"messages", "turnaround_t", "decided_t"} {
			if v["lcr/8/"+m] != Regression {
				t.Errorf("lcr %s: %s, want regression", m, v["lcr/8/"+m])
			}
			if v["hs/8/"+m] != NoChange {
				t.Errorf("hs %s: %s, want no change", m, v["hs/8/"+m])
			}
		}
		regs := c.Regressions()
		if len(regs) != 3 || regs[0].Delta.Get() != 1 || !regs[0].P.IsSet() || regs[0].P.Get() != 2.0/252 {
			t.Errorf("regressions %+v", regs)
		}
		// The reverse direction is an improvement.
		if v := verdicts(Compare(doubled, base, CompareOptions{Threshold: -1})); v["lcr/8/messages"] != Improvement {
			t.Errorf("halved: %s", v["lcr/8/messages"])
		}
	})
	t.Run("threshold", func(t *testing.T) {
		// The median 4% up, the samples apart: significant, but within 5%.
		base := trialsOf("lcr", 8, 1000, 1005, 1010, 1015, 1020)
		up := trialsOf("lcr", 8, 1040, 1045, 1050, 1055, 1060)
		ch := changeOf(t, Compare(base, up, CompareOptions{Threshold: -1}), "messages")
		if ch.Verdict != NoChange || !ch.P.IsSet() || ch.P.Get() >= 0.05 {
			t.Errorf("4%% up with threshold 5%%: %s (%s)", ch.Verdict, ch.Reason)
		}
		if v := verdicts(Compare(base, up, CompareOptions{Threshold: 0.01})); v["lcr/8/messages"] != Regression {
			t.Errorf("4%% up with threshold 1%%: %s", v["lcr/8/messages"])
		}
	})
	t.Run("too few", func(t *testing.T) {
		ch := changeOf(t, Compare(trialsOf("lcr", 8, 44, 45, 46), trialsOf("lcr", 8, 88, 90, 92), CompareOptions{Threshold: -1}), "messages")
		if ch.Verdict != CannotDecide || !strings.Contains(ch.Reason, "need at least 4 samples per side") {
			t.Errorf("3 vs 3: %s (%s)", ch.Verdict, ch.Reason)
		}
		// Three identical values on each side are no change all the same.
		c := Compare(trialsOf("lcr", 8, 44, 44, 44), trialsOf("lcr", 8, 44, 44, 44), CompareOptions{})
		if ch := changeOf(t, c, "messages"); ch.Verdict != NoChange {
			t.Errorf("identical 3 vs 3: %s", ch.Verdict)
		}
	})
	t.Run("one side", func(t *testing.T) {
		c := Compare(trialsOf("lcr", 8, 44, 44, 44, 44), trialsOf("lcr", 16, 152, 152, 152, 152), CompareOptions{})
		v := verdicts(c)
		if v["lcr/8/messages"] != OnlyInBase || v["lcr/16/messages"] != OnlyInNew {
			t.Errorf("%v", v)
		}
	})
	t.Run("errors excluded", func(t *testing.T) {
		bad := trialsOf("lcr", 8, 44, 44, 44, 44, 1000)
		bad[4].Error = "crashed"
		if v := verdicts(Compare(trialsOf("lcr", 8, 44, 44, 44, 44), bad, CompareOptions{})); v["lcr/8/messages"] != NoChange {
			t.Errorf("a failed trial's figure was compared: %v", v["lcr/8/messages"])
		}
	})
}

// changeOf is the first change of the given metric.
func changeOf(t *testing.T, c Comparison, metric string) Change {
	t.Helper()
	for _, ch := range c.Changes {
		if ch.Metric == metric {
			return ch
		}
	}
	t.Fatalf("no %s in the comparison", metric)
	return Change{}
}

// TestCompareVerdicts pins the rules on shares (safe, live, correct
// trials) and failover medians.
func TestCompareVerdicts(t *testing.T) {
	base := trialsOf("bully", 8, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105)
	t.Run("one new safety violation", func(t *testing.T) {
		// One violating trial of ten is far from significant (p=1), yet
		// BASE had none: a regression whatever the sample size.
		newer := trialsOf("bully", 8, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105)
		newer[3].SafetyViolations = 2
		ch := changeOf(t, Compare(base, newer, CompareOptions{}), "safety")
		if ch.Verdict != Regression || ch.BaseCount != 10 || ch.NewCount != 9 || !ch.P.IsSet() || ch.P.Get() != 1 {
			t.Errorf("%+v", ch)
		}
		if !strings.Contains(ch.Reason, "1 of 10 NEW trials violate safety") {
			t.Errorf("reason %q", ch.Reason)
		}
		// The same with a single trial on each side.
		ch = changeOf(t, Compare(base[:1], newer[3:4], CompareOptions{}), "safety")
		if ch.Verdict != Regression {
			t.Errorf("1 vs 1 trial: %s", ch.Verdict)
		}
	})
	t.Run("violations on both sides", func(t *testing.T) {
		// BASE already violated: only a significant rise counts.
		b := slices.Clone(base)
		b[0].SafetyViolations = 1
		newer := slices.Clone(base)
		newer[0].SafetyViolations, newer[1].SafetyViolations = 1, 1
		if ch := changeOf(t, Compare(b, newer, CompareOptions{}), "safety"); ch.Verdict != NoChange {
			t.Errorf("1 → 2 of 10 violating: %s (%s)", ch.Verdict, ch.Reason)
		}
		for i := range newer {
			newer[i].SafetyViolations = 1
		}
		if ch := changeOf(t, Compare(b, newer, CompareOptions{}), "safety"); ch.Verdict != Regression {
			t.Errorf("1 → 10 of 10 violating: %s (%s)", ch.Verdict, ch.Reason)
		}
		if ch := changeOf(t, Compare(newer, b, CompareOptions{}), "safety"); ch.Verdict != Improvement {
			t.Errorf("10 → 1 of 10 violating: %s (%s)", ch.Verdict, ch.Reason)
		}
	})
	t.Run("liveness", func(t *testing.T) {
		newer := slices.Clone(base)
		newer[0].Live = false
		// 10 → 9 of 10 live: far from significant (p = 1), but every BASE
		// trial was live and NEW lost 10% > the 5% threshold: a regression
		// whatever q, named with its interval.
		ch := changeOf(t, Compare(base, newer, CompareOptions{}), "live")
		if ch.Verdict != Regression || !strings.Contains(ch.Reason, "whatever q") || ch.P.Get() < 0.5 {
			t.Errorf("10 → 9 of 10 live: %s (%s)", ch.Verdict, ch.Reason)
		}
		if ch.Figures() != "10/10 → 9/10 trials (-10.0 points [-40.4, +18.9])" {
			t.Errorf("figures %q", ch.Figures())
		}
		// Within the threshold (2 of 40 = 5%, not above 5%), no verdict
		// without a test. (CompareOptions{} has threshold 0: any loss.)
		base40, newer40 := slices.Concat(base, base, base, base), slices.Concat(base, base, base, base)
		newer40 = slices.Clone(newer40)
		newer40[0].Live, newer40[1].Live = false, false
		if ch := changeOf(t, Compare(base40, newer40, CompareOptions{Threshold: 0.05}), "live"); ch.Verdict != NoChange {
			t.Errorf("40 → 38 of 40 live, 5%%: %s (%s)", ch.Verdict, ch.Reason)
		}
		for i := range 6 {
			newer[i].Live = false
		}
		ch = changeOf(t, Compare(base, newer, CompareOptions{}), "live")
		if ch.Verdict != Regression || math.Abs(ch.P.Get()-fisherExact(10, 10, 4, 10)) > 1e-15 || ch.Delta.Get() != -0.6 {
			t.Errorf("10 → 4 of 10 live: %+v", ch)
		}
		if ch := changeOf(t, Compare(base, newer, CompareOptions{}), "correct"); ch.Verdict != NoChange {
			t.Errorf("correct unchanged: %s", ch.Verdict)
		}
	})
	t.Run("failover", func(t *testing.T) {
		withFailover := func(rows []Row, ft ...float64) []Row {
			rows = slices.Clone(rows)
			for i := range rows {
				rows[i].FailoverT = Some(ft[i%len(ft)])
				rows[i].DetectS, rows[i].TS = Some(0.01), 0.001
			}
			return rows
		}
		c := Compare(withFailover(base, 20, 21, 22), withFailover(base, 40, 41, 42), CompareOptions{})
		if ch := changeOf(t, c, "failover_t"); ch.Verdict != Regression {
			t.Errorf("failover doubled: %s (%s)", ch.Verdict, ch.Reason)
		}
		if ch := changeOf(t, c, "detect_t"); ch.Verdict != NoChange || ch.BaseMedian.Get() != 10 {
			t.Errorf("detect_t unchanged at 10T: %+v", ch)
		}
		// Without crashes there is no failover to compare.
		for _, ch := range Compare(base, base, CompareOptions{}).Changes {
			if ch.Metric == "failover_t" || ch.Metric == "detect_t" {
				t.Errorf("failover compared in runs without one: %+v", ch)
			}
		}
	})
}

func TestCompareGolden(t *testing.T) {
	base := append(trialsOf("lcr", 8, 44, 46, 44, 48, 44), trialsOf("hs", 8, 80, 84, 82, 86, 88)...)
	base = append(base, trialsOf("ring", 4, 11, 11, 8)...)
	newer := append(trialsOf("lcr", 8, 88, 92, 88, 96, 88), trialsOf("hs", 8, 60, 62, 61, 60, 63)...)
	newer = append(newer, trialsOf("ring", 4, 11, 12, 8)...)
	newer = append(newer, trialsOf("bully", 5, 12, 12, 12, 12)...)
	c := Compare(base, newer, CompareOptions{Threshold: -1})
	var text, js bytes.Buffer
	if err := WriteCompareText(&text, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("compare JSON does not parse: %v", err)
	}
	if doc["regression"] != true {
		t.Error("JSON regression flag not set")
	}
	golden(t, "compare.txt.golden", text.Bytes())
	golden(t, "compare.json.golden", js.Bytes())
}

// The Hodges–Lehmann shift and its interval against a brute force over
// every pairwise difference, and the interval's coverage of a known shift.
func TestHodgesLehmann(t *testing.T) {
	base := []float64{44, 46, 44, 48, 44, 51, 39, 47}
	new := []float64{52, 49, 55, 50, 53, 57, 48, 51, 54}
	var diffs []float64
	for _, x := range new {
		for _, b := range base {
			diffs = append(diffs, x-b)
		}
	}
	slices.Sort(diffs)
	est, lo, hi, ok := hodgesLehmann(base, new)
	want := (diffs[len(diffs)/2-1] + diffs[len(diffs)/2]) / 2
	if len(diffs)%2 == 1 {
		want = diffs[len(diffs)/2]
	}
	n, m := float64(len(base)), float64(len(new))
	k := int(math.Floor(n*m/2 - zLevel*math.Sqrt(n*m*(n+m+1)/12)))
	if !ok || math.Abs(est-want) > 1e-9 || math.Abs(lo-diffs[k-1]) > 1e-9 || math.Abs(hi-diffs[len(diffs)-k]) > 1e-9 {
		t.Fatalf("HL %v [%v, %v] %v; brute force %v [%v, %v] (k=%d)", est, lo, hi, ok, want, diffs[k-1], diffs[len(diffs)-k], k)
	}
	if !(lo < est && est < hi) {
		t.Errorf("interval [%v, %v] does not hold the estimate %v", lo, hi, est)
	}
	if _, _, _, ok := hodgesLehmann([]float64{1, 2}, []float64{3}); ok {
		t.Error("an interval from 2 vs 1 samples")
	}
	// Coverage: 400 pairs of 20 vs 20 normal samples, NEW shifted by 3;
	// a 95% interval holds 3 in about 380 of them (fixed seed).
	rng := rand.New(rand.NewPCG(1, 2))
	held := 0
	for range 400 {
		b, x := make([]float64, 20), make([]float64, 20)
		for i := range b {
			b[i], x[i] = rng.NormFloat64()*5, 3+rng.NormFloat64()*5
		}
		if _, lo, hi, ok := hodgesLehmann(b, x); ok && lo <= 3 && 3 <= hi {
			held++
		}
	}
	if held < 364 || held > 396 { // 91%–99%
		t.Errorf("the 95%% interval held the true shift in %d of 400 draws", held)
	}
}
