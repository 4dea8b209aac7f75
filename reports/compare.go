package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CompareOptions set how Compare judges a change.
type CompareOptions struct {
	// Alpha is the significance level of the two-sided Mann–Whitney test;
	// 0 means 0.05.
	Alpha float64
	// Threshold is the least relative change of the median that counts, as
	// a fraction (0.05 is 5%); smaller significant changes are no change.
	// Negative means 0.05; 0 counts every significant change.
	Threshold float64
	// AcrossRuntimes groups rows without their runtime, so that a group's
	// simulated trials (base) meet its live ones (new): electbench twin.
	// Its changes name the runtime TwinRuntime.
	AcrossRuntimes bool
	// Disruption compares the disruption figures too (DisruptionMetrics):
	// twin of an incident scenario, whose signature they are.
	Disruption bool
}

// TwinRuntime is the runtime a Change names when it compares the
// runtimes (CompareOptions.AcrossRuntimes).
const TwinRuntime = "sim-vs-live"

func (o CompareOptions) withDefaults() CompareOptions {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Threshold < 0 {
		o.Threshold = 0.05
	}
	return o
}

// Verdict is what Compare concludes about one metric of one group.
type Verdict string

// The verdicts. Only Regression makes `electbench compare` fail.
const (
	Regression   Verdict = "regression"    // significantly larger, beyond the threshold
	Improvement  Verdict = "improvement"   // significantly smaller, beyond the threshold
	NoChange     Verdict = "no change"     // not significant, within the threshold, or identical
	CannotDecide Verdict = "cannot decide" // too few samples for the test to ever be significant
	OnlyInBase   Verdict = "only in base"  // the group or metric is missing from NEW
	OnlyInNew    Verdict = "only in new"   // the group or metric is missing from BASE
)

// compareMetrics are the compared figures, tested on their medians. For
// each, larger is worse. Optional ones (failover) are left out of a group
// where neither side has a value, as in runs that crash no leader.
var compareMetrics = []struct {
	name     string
	value    func(r *Row) Opt[float64]
	optional bool
}{
	{"messages", (*Row).MessagesSeen, false},
	{"turnaround_t", func(r *Row) Opt[float64] { return r.TurnaroundT }, false},
	{"turnaround_tm", func(r *Row) Opt[float64] { return r.TurnaroundTM }, true},
	{"decided_t", func(r *Row) Opt[float64] { return r.DecidedT }, false},
	{"detect_t", detectT, true},
	{"failover_t", func(r *Row) Opt[float64] { return r.FailoverT }, true},
}

// DisruptionMetrics are the disruption figures (ALGORITHMS.md,
// "Disruption") compared with CompareOptions.Disruption, as medians: the
// columns an incident scenario's signature is written in.
var DisruptionMetrics = []string{"disruptions", "leaderless_t", "stale_leader_s", "term_inflation", "elections"}

// detectT is detect_s in units of T (t_s); unset when either is.
func detectT(r *Row) Opt[float64] {
	if !r.DetectS.IsSet() || !(r.TS > 0) {
		return Opt[float64]{}
	}
	return Some(r.DetectS.Get() / r.TS)
}

// shareMetrics are the verdicts compared as shares of a group's trials
// (every trial, errors included, as summary.csv's shares); for each, a
// smaller share is worse.
var shareMetrics = []struct {
	name string
	has  func(r *Row) bool
}{
	{"safety", func(r *Row) bool { return r.SafetyViolations == 0 }}, // trials without a safety violation
	{"live", func(r *Row) bool { return r.Live }},
	{"correct", func(r *Row) bool { return r.Correct }},
}

// Metric kinds of a Change.
const (
	KindShare  = "share"  // a share of trials, tested with Fisher's exact test
	KindMedian = "median" // a metric's median, tested with Mann–Whitney
)

// Change compares one metric of one group between a base and a new run.
type Change struct {
	Algorithm string `json:"algorithm"`
	Variant   string `json:"variant"`
	Runtime   string `json:"runtime"`
	Scenario  string `json:"scenario"`
	Nodes     int    `json:"nodes"`
	Metric    string `json:"metric"`
	Kind      string `json:"kind"` // KindShare or KindMedian

	BaseN      int          `json:"base_n"`
	NewN       int          `json:"new_n"`
	BaseMedian Opt[float64] `json:"-"`
	NewMedian  Opt[float64] `json:"-"`
	// Delta is the relative change of the median, (new−base)/|base|; ±Inf
	// when the base median is 0 and the new one is not. Unset when either
	// side has no values.
	Delta Opt[float64] `json:"-"`
	// BaseCount and NewCount are, for a share, the trials of each side
	// with the property (safe, live, correct); BaseShare and NewShare the
	// same over BaseN and NewN. For a share, Delta is NewShare−BaseShare.
	// Shift is the size of the change with its 95% interval [ShiftLow,
	// ShiftHigh] (compare_interval.go): for a median the Hodges–Lehmann
	// shift NEW − BASE in the metric's unit, for a share the difference
	// of shares (Delta) and its Newcombe interval. The interval is unset
	// when the samples are too small for one.
	Shift, ShiftLow, ShiftHigh Opt[float64] `json:"-"`
	BaseCount                  int          `json:"base_count"`
	NewCount                   int          `json:"new_count"`
	BaseShare                  Opt[float64] `json:"-"`
	NewShare                   Opt[float64] `json:"-"`
	P                          Opt[float64] `json:"-"` // two-sided p-value; unset when no test ran
	// Q is the Benjamini–Hochberg q-value of P among the comparison's
	// tests that could reach α (compare_fdr.go), on which the verdict
	// rests; unset outside that family.
	Q       Opt[float64] `json:"-"`
	Exact   bool         `json:"exact"`
	Verdict Verdict      `json:"verdict"`
	Reason  string       `json:"reason"`
}

// Name is the group and metric as the text report prints it:
// algorithm/variant runtime scenario n=N metric.
func (c *Change) Name() string {
	return fmt.Sprintf("%s/%s %s %s n=%d %s", c.Algorithm, c.Variant, c.Runtime, c.Scenario, c.Nodes, c.Metric)
}

// Comparison is the outcome of Compare.
type Comparison struct {
	Alpha      float64
	Threshold  float64
	MinSamples int // per side, for any verdict (MinSamples(Alpha))
	// Tests is the family the q-values are taken over: the tests that
	// could reach Alpha (adjust). A change that shows in one test alone
	// is significant only at p ≤ Alpha/Tests, which takes LoneSamples
	// trials per side at least (MinSamples(Alpha/Tests)); 0 without tests.
	Tests       int
	LoneSamples int
	Groups      int // groups on either side
	BaseRows    int
	NewRows     int
	Changes     []Change // every group and metric, base's group order first
	// Counterexamples are the findings of NEW's hunts that its base's
	// hunts did not have (NewCounterexamples), set by the caller: each is
	// a regression.
	Counterexamples []NewCounterexample
}

// Regressions returns the changes judged regressions.
func (c Comparison) Regressions() []Change { return c.with(Regression) }

func (c Comparison) with(v Verdict) []Change {
	var out []Change
	for _, ch := range c.Changes {
		if ch.Verdict == v {
			out = append(out, ch)
		}
	}
	return out
}

// Compare compares the trials of base and new group by group (algorithm,
// variant, runtime, scenario, nodes): first the shares of safe, live and
// correct trials, then the medians of messages, turnaround_t, turnaround_tm (where set), decided_t,
// detect_t and failover_t over the trials without an error whose value is
// set and finite.
//
// Significance is judged on each test's Benjamini–Hochberg q-value over
// the comparison's tests that could reach Alpha (adjust): a comparison runs
// hundreds of tests, and p ≤ Alpha alone would find some by chance.
//
// Shares are tested with a two-sided Fisher exact test (fisherExact). A
// group whose BASE trials never violated safety and whose NEW trials did is
// a Regression whatever the sample size or p-value: one violation is a bug,
// not noise. Otherwise a share that fell significantly is a Regression,
// one that rose an Improvement.
//
// Medians are tested with a two-sided Mann–Whitney U test (mannWhitney:
// exact for small samples, normal approximation with tie correction beyond)
// and report the relative change of the median. The verdict is Regression
// when the test is significant and the median grew by more than
// Threshold, Improvement when it shrank by more than Threshold, and NoChange
// otherwise — always NoChange for two identical samples. When no
// arrangement of the sizes at hand could reach significance (2/C(n1+n2, n1)
// > Alpha) the verdict is CannotDecide, with the samples per side needed in
// Reason.
func Compare(base, new []Row, opt CompareOptions) Comparison {
	b, n := NewCompareSide(opt), NewCompareSide(opt)
	for i := range base {
		b.Add(&base[i])
	}
	for i := range new {
		n.Add(&new[i])
	}
	return CompareSides(b, n)
}

// CompareSide is what Compare needs of one side's rows, gathered a row at
// a time (Add): per group, how many trials had each share's property and
// the samples of the compared figures. It holds no row, so that a
// command can compare results files read as a stream (ScanFile): a
// 100 MB file is half a million rows of some 900 bytes each, and its
// samples some 40 bytes a row.
type CompareSide struct {
	opt    CompareOptions
	rows   int
	keys   []groupKey // in the order the rows first named them
	groups map[groupKey]*sideGroup
}

// sideGroup is one group of a CompareSide.
type sideGroup struct {
	trials int
	has    []int       // per shareMetrics: the trials with the property
	values [][]float64 // per compareMetrics, then DisruptionMetrics: metricValues
}

// NewCompareSide starts a side of a comparison with opt; both sides of
// one (CompareSides) take the same options.
func NewCompareSide(opt CompareOptions) *CompareSide {
	return &CompareSide{opt: opt.withDefaults(), groups: map[groupKey]*sideGroup{}}
}

// Add counts r into its group. It keeps nothing of r but its group's key
// (texts shared with r) and its figures.
func (s *CompareSide) Add(r *Row) {
	s.rows++
	rt := r.Runtime
	if s.opt.AcrossRuntimes {
		rt = TwinRuntime
	}
	k := groupKey{r.Algorithm, r.Variant, rt, r.Scenario, r.Nodes}
	g := s.groups[k]
	if g == nil {
		g = &sideGroup{has: make([]int, len(shareMetrics)), values: make([][]float64, len(compareMetrics)+len(DisruptionMetrics))}
		s.groups[k] = g
		s.keys = append(s.keys, k)
	}
	g.trials++
	for i, m := range shareMetrics {
		if m.has(r) {
			g.has[i]++
		}
	}
	if r.Error != "" {
		return
	}
	for i, m := range compareMetrics {
		g.values[i] = appendValue(g.values[i], m.value(r))
	}
	if s.opt.Disruption {
		for i, name := range DisruptionMetrics {
			var o Opt[float64]
			if v, ok := r.Number(name); ok {
				o = Some(v)
			}
			g.values[len(compareMetrics)+i] = appendValue(g.values[len(compareMetrics)+i], o)
		}
	}
}

// appendValue adds v to xs when metricValues would describe it: set and
// finite.
func appendValue(xs []float64, v Opt[float64]) []float64 {
	if v.IsSet() && !math.IsNaN(v.Get()) && !math.IsInf(v.Get(), 0) {
		return append(xs, v.Get())
	}
	return xs
}

// group is the side's group k, empty when the side has none.
func (s *CompareSide) group(k groupKey) *sideGroup {
	if g := s.groups[k]; g != nil {
		return g
	}
	return &sideGroup{has: make([]int, len(shareMetrics)), values: make([][]float64, len(compareMetrics)+len(DisruptionMetrics))}
}

// CompareSides compares two sides as Compare compares their rows: groups
// in the order base names them, then those only new names.
func CompareSides(base, new *CompareSide) Comparison {
	opt := base.opt
	if new.opt.AcrossRuntimes != opt.AcrossRuntimes || new.opt.Disruption != opt.Disruption {
		panic(fmt.Sprintf("reports: the sides of a comparison were gathered with different options (%+v, %+v)", opt, new.opt))
	}
	c := Comparison{Alpha: opt.Alpha, Threshold: opt.Threshold, MinSamples: MinSamples(opt.Alpha),
		BaseRows: base.rows, NewRows: new.rows}
	keys := slices.Clone(base.keys)
	for _, k := range new.keys {
		if base.groups[k] == nil {
			keys = append(keys, k)
		}
	}
	c.Groups = len(keys)
	for _, k := range keys {
		bg, ng := base.group(k), new.group(k)
		group := Change{Algorithm: k.algorithm, Variant: k.variant, Runtime: k.runtime,
			Scenario: k.scenario, Nodes: k.nodes}
		for i, m := range shareMetrics {
			ch := group
			ch.Metric, ch.Kind = m.name, KindShare
			judgeShare(&ch, bg.has[i], bg.trials, ng.has[i], ng.trials, opt)
			c.Changes = append(c.Changes, ch)
		}
		for i, m := range compareMetrics {
			b, n := bg.values[i], ng.values[i]
			if m.optional && len(b) == 0 && len(n) == 0 {
				continue
			}
			ch := group
			ch.Metric, ch.Kind = m.name, KindMedian
			judge(&ch, b, n, opt, c.MinSamples)
			c.Changes = append(c.Changes, ch)
		}
		if opt.Disruption {
			c.Changes = append(c.Changes, disruptionChanges(group, bg, ng, opt, c.MinSamples)...)
		}
	}
	c.Tests = adjust(c.Changes, opt.Alpha)
	if c.Tests > 0 {
		c.LoneSamples = MinSamples(opt.Alpha / float64(c.Tests))
	}
	return c
}

// disruptionChanges compares a group's disruption figures, those either
// side has (an algorithm without terms or leases has none).
func disruptionChanges(group Change, base, new *sideGroup, opt CompareOptions, minSamples int) []Change {
	var out []Change
	for i, name := range DisruptionMetrics {
		b, n := base.values[len(compareMetrics)+i], new.values[len(compareMetrics)+i]
		if len(b) == 0 && len(n) == 0 {
			continue
		}
		ch := group
		ch.Metric, ch.Kind = name, KindMedian
		judge(&ch, b, n, opt, minSamples)
		out = append(out, ch)
	}
	return out
}

// judgeShare decides a share metric: k of n trials in each side.
func judgeShare(ch *Change, bk, bn, nk, nn int, opt CompareOptions) {
	ch.BaseN, ch.NewN, ch.BaseCount, ch.NewCount = bn, nn, bk, nk
	if bn > 0 {
		ch.BaseShare = Some(float64(bk) / float64(bn))
	}
	if nn > 0 {
		ch.NewShare = Some(float64(nk) / float64(nn))
	}
	switch {
	case bn == 0 && nn == 0:
		ch.Verdict, ch.Reason = NoChange, "no trials on either side"
		return
	case nn == 0:
		ch.Verdict, ch.Reason = OnlyInBase, "no trials in NEW"
		return
	case bn == 0:
		ch.Verdict, ch.Reason = OnlyInNew, "no trials in BASE"
		return
	}
	ch.Delta = Some(ch.NewShare.Get() - ch.BaseShare.Get())
	lo, hi := newcombe(bk, bn, nk, nn)
	ch.Shift, ch.ShiftLow, ch.ShiftHigh = ch.Delta, Some(lo), Some(hi)
	p := fisherExact(bk, bn, nk, nn)
	ch.P, ch.Exact = Some(p), true
	switch {
	case ch.Metric == "safety" && bk == bn && nk < nn:
		ch.Verdict = Regression
		ch.Reason = fmt.Sprintf("%d of %d NEW trials violate safety, none of %d BASE trials did: a new safety violation is a regression whatever the sample size",
			nn-nk, nn, bn)
	case lostAll(ch, opt):
		ch.Verdict = Regression
		ch.Reason = fmt.Sprintf("%d of %d NEW trials not %s, none of %d BASE trials: a loss beyond the threshold (%s of the trials) is a regression whatever q",
			nn-nk, nn, ch.Metric, bn, strings.TrimPrefix(fmtPercent(opt.Threshold), "+"))
	case ch.Delta.Get() == 0:
		ch.Verdict, ch.Reason = NoChange, "same share"
	case p >= opt.Alpha:
		ch.Verdict, ch.Reason = NoChange, fmt.Sprintf("not significant (p=%s ≥ %s)", fmtP(p), fmtP(opt.Alpha))
	case ch.Delta.Get() < 0:
		ch.Verdict, ch.Reason = Regression, fmt.Sprintf("share %s points (p=%s)", fmtPoints(ch.Delta.Get()), fmtP(p))
	default:
		ch.Verdict, ch.Reason = Improvement, fmt.Sprintf("share %s points (p=%s)", fmtPoints(ch.Delta.Get()), fmtP(p))
	}
}

// lostAll is a loss of liveness or correctness that needs no test: every
// BASE trial had the property, and more than the threshold's share of NEW
// trials lack it (100% live to 90% is a regression however few the
// trials; a significance test over 20 a side would call it noise).
func lostAll(ch *Change, opt CompareOptions) bool {
	if ch.Metric != "live" && ch.Metric != "correct" {
		return false
	}
	return ch.BaseCount == ch.BaseN && ch.NewCount < ch.NewN &&
		float64(ch.NewN-ch.NewCount)/float64(ch.NewN) > opt.Threshold
}

// fmtPoints formats a difference of shares in percentage points.
func fmtPoints(d float64) string { return fmt.Sprintf("%+.1f", 100*d) }

// metricValues are the values Summarize would describe: trials without an
// error whose value is set and finite.
func metricValues(rows []*Row, value func(*Row) Opt[float64]) []float64 {
	var xs []float64
	for _, r := range rows {
		if r.Error != "" {
			continue
		}
		if v := value(r); v.IsSet() && !math.IsNaN(v.Get()) && !math.IsInf(v.Get(), 0) {
			xs = append(xs, v.Get())
		}
	}
	return xs
}

func judge(ch *Change, base, new []float64, opt CompareOptions, minSamples int) {
	ch.BaseN, ch.NewN = len(base), len(new)
	switch {
	case len(base) == 0 && len(new) == 0:
		ch.Verdict, ch.Reason = NoChange, "no values on either side"
		return
	case len(new) == 0:
		ch.Verdict, ch.Reason = OnlyInBase, "no values in NEW"
		ch.BaseMedian = Some(median(base))
		return
	case len(base) == 0:
		ch.Verdict, ch.Reason = OnlyInNew, "no values in BASE"
		ch.NewMedian = Some(median(new))
		return
	}
	mb, mn := median(base), median(new)
	ch.BaseMedian, ch.NewMedian = Some(mb), Some(mn)
	shift, lo, hi, ok := hodgesLehmann(base, new)
	ch.Shift = Some(shift)
	if ok {
		ch.ShiftLow, ch.ShiftHigh = Some(lo), Some(hi)
	}
	switch {
	case mb == mn:
		ch.Delta = Some(0.0)
	case mb == 0:
		ch.Delta = Some(math.Inf(int(math.Copysign(1, mn))))
	default:
		ch.Delta = Some((mn - mb) / math.Abs(mb))
	}
	if sameMultiset(base, new) {
		ch.Verdict, ch.Reason = NoChange, "identical samples"
		return
	}
	if minAchievableP(len(base), len(new)) > opt.Alpha {
		ch.Verdict = CannotDecide
		ch.Reason = fmt.Sprintf("cannot decide: need at least %d samples per side (have %d and %d)",
			minSamples, len(base), len(new))
		return
	}
	mw := mannWhitney(base, new)
	ch.P, ch.Exact = Some(mw.P), mw.Exact
	d := ch.Delta.Get()
	switch {
	case mw.P >= opt.Alpha:
		ch.Verdict, ch.Reason = NoChange, fmt.Sprintf("not significant (p=%s ≥ %s)", fmtP(mw.P), fmtP(opt.Alpha))
	case math.Abs(d) <= opt.Threshold:
		ch.Verdict, ch.Reason = NoChange, fmt.Sprintf("significant (p=%s) but the median moved %s, within ±%s",
			fmtP(mw.P), fmtPercent(d), fmtPercent(opt.Threshold))
	case d > 0:
		ch.Verdict, ch.Reason = Regression, fmt.Sprintf("median %s (p=%s)", fmtPercent(d), fmtP(mw.P))
	default:
		ch.Verdict, ch.Reason = Improvement, fmt.Sprintf("median %s (p=%s)", fmtPercent(d), fmtP(mw.P))
	}
}

// median is the middle value, or the mean of the middle two.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func sameMultiset(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.Sort(sa)
	slices.Sort(sb)
	return slices.Equal(sa, sb)
}

// fmtP writes a p- or q-value in scientific notation, two significant
// digits: 7.9e-03, 1.5e-11; one too small for a float64 is "<1e-300", not 0.
func fmtP(p float64) string {
	if p < 1e-300 {
		return "<1e-300"
	}
	return strconv.FormatFloat(p, 'e', 1, 64)
}

func fmtPercent(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "+inf%"
	case math.IsInf(d, -1):
		return "-inf%"
	}
	return fmt.Sprintf("%+.1f%%", 100*d)
}

// WriteCompareText writes the verdicts people read: one line per
// regression, improvement, group that cannot be decided, and group present
// on one side only, then a closing count. Groups with no change are not
// listed, so two identical runs print only the closing line.
func WriteCompareText(out io.Writer, c Comparison) error {
	var b bytes.Buffer
	counts := map[Verdict]int{}
	for i := range c.Changes {
		ch := &c.Changes[i]
		counts[ch.Verdict]++
		if ch.Verdict == NoChange {
			continue
		}
		fmt.Fprintf(&b, "%-13s  %s: %s", strings.ToUpper(string(ch.Verdict)), ch.Name(), ch.Figures())
		if ch.P.IsSet() {
			method := "normal approximation"
			switch {
			case ch.Kind == KindShare:
				method = "Fisher exact"
			case ch.Exact:
				method = "exact"
			}
			fmt.Fprintf(&b, ", p=%s (%s)", fmtP(ch.P.Get()), method)
			if ch.Q.IsSet() {
				fmt.Fprintf(&b, ", q=%s", fmtP(ch.Q.Get()))
			}
		}
		if ch.Verdict == CannotDecide {
			fmt.Fprintf(&b, ": need at least %d samples per side", c.MinSamples)
		}
		if ch.Kind == KindShare && ch.Verdict == Regression && ch.Metric == "safety" && ch.BaseCount == ch.BaseN {
			b.WriteString(": new safety violations")
		}
		b.WriteByte('\n')
	}
	for _, n := range c.Counterexamples {
		fmt.Fprintf(&b, "%-13s  %s\n", strings.ToUpper(string(Regression)), n)
	}
	fmt.Fprintf(&b, "compared %d groups, %d tests (%d base rows, %d new rows; shares of safe, live, correct trials: Fisher exact; medians: Mann–Whitney; two-sided; significant: Benjamini–Hochberg q ≤ α=%s over %s that could reach it; threshold ±%s on medians): ",
		c.Groups, len(c.Changes), c.BaseRows, c.NewRows,
		strconv.FormatFloat(c.Alpha, 'f', -1, 64), familyText(c.Tests), strings.TrimPrefix(fmtPercent(c.Threshold), "+"))
	var parts []string
	for _, v := range []Verdict{Regression, Improvement, CannotDecide, OnlyInBase, OnlyInNew} {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	if len(c.Counterexamples) > 0 {
		parts = append(parts, fmt.Sprintf("%d new counterexample(s)", len(c.Counterexamples)))
	}
	if len(parts) == 0 {
		b.WriteString("no significant change\n")
	} else {
		b.WriteString(strings.Join(parts, ", ") + "\n")
	}
	if c.Tests > 1 {
		fmt.Fprintf(&b, "(a change that shows in one group and metric alone needs p ≤ α/%d: at least %d trials a side; one that shows in many is found with fewer)\n", c.Tests, c.LoneSamples)
	}
	_, err := io.WriteString(out, Printable(b.String()))
	return err
}

// Figures states both sides and the change: "median 44 → 88 (+100.0%), 5
// vs 5 trials" for a median, "20/20 → 0/20 trials (-100.0 points)" for a
// share.
func (c *Change) Figures() string {
	if c.Kind == KindShare {
		return fmt.Sprintf("%s → %s trials (%s points%s)", shareText(c.BaseCount, c.BaseN), shareText(c.NewCount, c.NewN), pointsText(c.Delta), c.IntervalText())
	}
	shift := ""
	if c.Shift.IsSet() {
		shift = ", shift " + signedText(c.Shift) + c.IntervalText()
	}
	return fmt.Sprintf("median %s → %s (%s)%s, %d vs %d trials",
		optText(c.BaseMedian), optText(c.NewMedian), deltaText(c.Delta), shift, c.BaseN, c.NewN)
}

// IntervalText is the 95% interval of the change's size: " [−3.1, +0.4]"
// (points for a share, the metric's unit for a median), "" without one.
func (c *Change) IntervalText() string {
	if !c.ShiftLow.IsSet() {
		return ""
	}
	if c.Kind == KindShare {
		return fmt.Sprintf(" [%s, %s]", fmtPoints(c.ShiftLow.Get()), fmtPoints(c.ShiftHigh.Get()))
	}
	return fmt.Sprintf(" [%s, %s]", signedText(c.ShiftLow), signedText(c.ShiftHigh))
}

// signedText is a figure rounded to four significant digits, with its
// sign: +3.5, -0.01235.
func signedText(o Opt[float64]) string {
	if !o.IsSet() {
		return "-"
	}
	s := roundedText(o.Get())
	if o.Get() >= 0 {
		s = "+" + s
	}
	return s
}

// roundedText rounds a figure for people: four significant digits.
func roundedText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return FormatFloat(v)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return FormatFloat(r)
}

func shareText(k, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", k, n)
}

func pointsText(o Opt[float64]) string {
	if !o.IsSet() {
		return "-"
	}
	return fmtPoints(o.Get())
}

func optText(o Opt[float64]) string {
	if !o.IsSet() {
		return "-"
	}
	return roundedText(o.Get())
}

func deltaText(o Opt[float64]) string {
	if !o.IsSet() {
		return "-"
	}
	return fmtPercent(o.Get())
}

type jsonChange struct {
	Change
	BaseMedian jsonNumber      `json:"base_median"`
	NewMedian  jsonNumber      `json:"new_median"`
	BaseShare  jsonNumber      `json:"base_share"`
	NewShare   jsonNumber      `json:"new_share"`
	Delta      json.RawMessage `json:"delta"` // a number, "+inf", "-inf" or null
	P          jsonNumber      `json:"p"`
	Q          jsonNumber      `json:"q"`
	Shift      jsonNumber      `json:"shift"`     // Hodges–Lehmann shift (medians) or difference of shares
	ShiftLow   jsonNumber      `json:"shift_low"` // its 95% interval, null when too few samples
	ShiftHigh  jsonNumber      `json:"shift_high"`
}

type jsonComparison struct {
	Method     string       `json:"method"`
	Alpha      float64      `json:"alpha"`
	Threshold  float64      `json:"threshold"`
	MinSamples int          `json:"min_samples"`
	Tests      int          `json:"tests"`        // the family the q-values are taken over
	Lone       int          `json:"lone_samples"` // trials a side a change in one test alone needs
	Groups     int          `json:"groups"`
	BaseRows   int          `json:"base_rows"`
	NewRows    int          `json:"new_rows"`
	Regression bool         `json:"regression"`
	Changes    []jsonChange `json:"changes"`
	// NewCounterexamples name the findings of NEW's hunts its base did not have.
	NewCounterexamples []string `json:"new_counterexamples,omitempty"`
}

// CompareMethod says how Compare decides; the JSON output records it.
const CompareMethod = "shares of safe (no safety violation), live and correct trials, over every trial: two-sided Fisher exact test " +
	"(gonum combin.LogGeneralizedBinomial for the hypergeometric probabilities); regression = a safety violation in NEW where BASE had none, " +
	"whatever the sample size, or a significant drop of a share; " +
	"medians of messages, turnaround_t, turnaround_tm, decided_t, detect_t, failover_t on trials without error: two-sided Mann-Whitney U test; exact permutation distribution " +
	"(conditional on ties) for n1+n2 <= 50, else normal approximation with tie and continuity correction; " +
	"change = relative change of the median; size = Hodges-Lehmann shift with Moses' distribution-free 95% interval (medians), " +
	"difference of shares with Newcombe's hybrid score 95% interval (shares); regression = significant and change > threshold, " +
	"or a share of live or correct trials that fell from all of BASE's by more than the threshold, whatever q; " +
	"significant = Benjamini-Hochberg q <= alpha over the comparison's tests that could reach alpha (Fisher: the margins admit such a table; Mann-Whitney: a test ran)"

// WriteCompareJSON writes every change, decided or not, as one JSON
// document; regression is true when any change is a Regression.
func WriteCompareJSON(out io.Writer, c Comparison) error {
	doc := jsonComparison{Method: CompareMethod, Alpha: c.Alpha, Threshold: c.Threshold,
		MinSamples: c.MinSamples, Tests: c.Tests, Lone: c.LoneSamples, Groups: c.Groups, BaseRows: c.BaseRows, NewRows: c.NewRows,
		Regression: len(c.Regressions()) > 0 || len(c.Counterexamples) > 0, Changes: make([]jsonChange, len(c.Changes))}
	for _, n := range c.Counterexamples {
		doc.NewCounterexamples = append(doc.NewCounterexamples, n.String())
	}
	for i, ch := range c.Changes {
		jc := jsonChange{Change: ch, BaseMedian: jsonNumber(ch.BaseMedian),
			NewMedian: jsonNumber(ch.NewMedian), BaseShare: jsonNumber(ch.BaseShare),
			NewShare: jsonNumber(ch.NewShare), P: jsonNumber(ch.P), Q: jsonNumber(ch.Q),
			Shift: jsonNumber(ch.Shift), ShiftLow: jsonNumber(ch.ShiftLow), ShiftHigh: jsonNumber(ch.ShiftHigh)}
		switch {
		case !ch.Delta.IsSet():
			jc.Delta = json.RawMessage("null")
		case math.IsInf(ch.Delta.Get(), 1):
			jc.Delta = json.RawMessage(`"+inf"`)
		case math.IsInf(ch.Delta.Get(), -1):
			jc.Delta = json.RawMessage(`"-inf"`)
		default:
			jc.Delta = json.RawMessage(summaryNumber(ch.Delta.Get()))
		}
		doc.Changes[i] = jc
	}
	return writeIndented(out, doc)
}
