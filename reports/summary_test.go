package reports

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/montanaflynn/stats"
)

func TestSummaryGolden(t *testing.T) {
	groups := Summarize(sampleRows())
	var csv, js, table bytes.Buffer
	if err := WriteSummaryCSV(&csv, groups); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryJSON(&js, groups); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&table, groups, TableOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.csv.golden", csv.Bytes())
	golden(t, "summary.json.golden", js.Bytes())
	golden(t, "table.txt.golden", table.Bytes())
}

func TestWriteSummaryFiles(t *testing.T) {
	dir := t.TempDir()
	groups := Summarize(sampleRows())
	if err := WriteSummaryFiles(dir, []string{"csv", "json"}, groups); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteSummaryCSV(&want, groups); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dir+"/"+SummaryCSV); !bytes.Equal(got, want.Bytes()) {
		t.Error("summary.csv differs from WriteSummaryCSV")
	}
	if _, err := os.Stat(dir + "/" + SummaryJSON); err != nil {
		t.Error(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries, want the two summaries and no temporary files", len(entries))
	}
}

func TestSummarize(t *testing.T) {
	groups := Summarize(sampleRows())
	var names []string
	for _, g := range groups {
		names = append(names, g.Algorithm+"/"+g.Runtime+"/"+itoa(g.Nodes))
	}
	// First-appearance order, not sorted.
	if got := strings.Join(names, " "); got != "lcr/sim/8 bully/live/5 lcr/sim/16" {
		t.Fatalf("groups %s", got)
	}
	lcr, bully := groups[0], groups[1]
	if lcr.Trials != 6 || lcr.Errors != 0 || lcr.CorrectShare != 1 || lcr.LiveShare != 1 {
		t.Errorf("lcr/8: %+v", lcr)
	}
	if !lcr.TheoryMessages.IsSet() || lcr.TheoryMessages.Get() != 44 {
		t.Errorf("lcr/8 rows agree on 44 messages, got %v", lcr.TheoryMessages)
	}
	if lcr.Messages.N != 6 || lcr.Messages.Mean.Get() != (44*5+46)/6.0 || lcr.Messages.Median.Get() != 44 {
		t.Errorf("lcr/8 messages %+v", lcr.Messages)
	}
	// bully: one trial failed to run, one ran but never finished.
	if bully.Trials != 5 || bully.Errors != 1 || bully.CorrectShare != 0.6 || bully.LiveShare != 0.6 || bully.SafetyViolations != 1 {
		t.Errorf("bully: %+v", bully)
	}
	if bully.TheoryMessages.IsSet() {
		t.Errorf("bully rows disagree on theory, got %v", bully.TheoryMessages)
	}
	if bully.Messages.N != 4 || bully.Messages.Mean.Get() != 22.5 || bully.Messages.Min.Get() != 18 || bully.Messages.Max.Get() != 30 {
		t.Errorf("bully messages, failed trial excluded: %+v", bully.Messages)
	}
	if bully.TurnaroundT.N != 3 || bully.TurnaroundT.Mean.Get() != 11.75/3 {
		t.Errorf("bully turnaround_t, unset and failed excluded: %+v", bully.TurnaroundT)
	}
	single := groups[2].Messages
	if single.N != 1 || !single.Mean.IsSet() || single.StdDev.IsSet() || single.CILow.IsSet() || single.P99.Get() != 152 {
		t.Errorf("one trial: %+v", single)
	}
	if got := Summarize(nil); len(got) != 0 {
		t.Errorf("no rows: %+v", got)
	}
	noValues := describe(nil)
	if noValues.N != 0 || noValues.Mean.IsSet() || noValues.Median.IsSet() {
		t.Errorf("no values: %+v", noValues)
	}
}

func itoa(n int) string { return FormatFloat(float64(n)) }

// The reference statistics are deliberately naive: sort, index, sum.
func refMean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func refSorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

func refMedian(xs []float64) float64 {
	s := refSorted(xs)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// refPercentile is Hyndman and Fan's type 7: h = (n-1)p, interpolate between
// the values at floor(h) and floor(h)+1 (0-based).
func refPercentile(xs []float64, p float64) float64 {
	s := refSorted(xs)
	h := float64(len(s)-1) * p / 100
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[lo]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

func refStdDev(xs []float64) float64 {
	m := refMean(xs)
	ss := 0.0
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

func close(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func checkAgainstReference(t *testing.T, xs []float64) {
	t.Helper()
	s := describe(xs)
	s2 := refSorted(xs)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"mean", s.Mean.Get(), refMean(xs)},
		{"median", s.Median.Get(), refMedian(xs)},
		{"p95", s.P95.Get(), refPercentile(xs, 95)},
		{"p99", s.P99.Get(), refPercentile(xs, 99)},
		{"min", s.Min.Get(), s2[0]},
		{"max", s.Max.Get(), s2[len(s2)-1]},
	}
	if len(xs) > 1 {
		sd := refStdDev(xs)
		half := tCritical975(len(xs)-1) * sd / math.Sqrt(float64(len(xs)))
		checks = append(checks,
			struct {
				name      string
				got, want float64
			}{"stddev", s.StdDev.Get(), sd},
			struct {
				name      string
				got, want float64
			}{"ci95_low", s.CILow.Get(), refMean(xs) - half},
			struct {
				name      string
				got, want float64
			}{"ci95_high", s.CIHigh.Get(), refMean(xs) + half})
	}
	for _, c := range checks {
		if !close(c.got, c.want) {
			t.Errorf("%v: %s = %v, reference %v", xs, c.name, c.got, c.want)
		}
	}
}

func TestStatsAgainstReference(t *testing.T) {
	for _, xs := range [][]float64{
		{7},
		{1, 2},
		{1, 2, 3, 4},
		{4, 3, 2, 1},
		{44, 44, 44, 46, 44, 44},
		{0.5, 1.5, 1.5, 1.5, 9},
		{-3, 0, 3},
		{1e9, 1e9 + 1, 1e9 + 2},
	} {
		checkAgainstReference(t, xs)
	}
	r := rand.New(rand.NewPCG(7, 11))
	for range 500 {
		xs := make([]float64, 1+r.IntN(60))
		for i := range xs {
			switch r.IntN(3) {
			case 0:
				xs[i] = float64(r.IntN(10)) // many ties, like message counts
			case 1:
				xs[i] = r.NormFloat64()*5 + 20
			default:
				xs[i] = r.ExpFloat64() * 3
			}
		}
		checkAgainstReference(t, xs)
	}
}

// Hand-checked figures: NumPy's default percentile is also type 7.
func TestStatsKnownValues(t *testing.T) {
	s := describe([]float64{1, 2, 3, 4})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"median", s.Median.Get(), 2.5},
		{"p95", s.P95.Get(), 3.85}, // numpy.percentile([1,2,3,4], 95)
		{"p99", s.P99.Get(), 3.97},
		{"stddev", s.StdDev.Get(), math.Sqrt(5.0 / 3)},
		// 2.5 ± t(0.975, 3)·√(5/3)/2, in 40-digit arithmetic
		{"ci95_low", s.CILow.Get(), 0.445739743239478},
		{"ci95_high", s.CIHigh.Get(), 4.55426025676052},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// Student's t 0.975 quantiles, computed to 17 digits with mpmath
// (findroot of the regularized incomplete beta function).
func TestTCritical975(t *testing.T) {
	for _, tc := range []struct {
		df   int
		want float64
	}{
		{1, 12.706204736174705}, {2, 4.3026527297494639}, {3, 3.1824463052837096},
		{4, 2.7764451051977944}, {5, 2.5705818356363155}, {7, 2.3646242515927853},
		{10, 2.2281388519862747}, {20, 2.0859634472658648}, {30, 2.0422724563012383},
		{60, 2.0002978220142605}, {120, 1.9799304050824408}, {500, 1.9647198374673678},
		{999, 1.96234146113345}, {1000, 1.9623390808264085}, {5000, 1.9604385517065079},
		{1000000, 1.959966356814107},
	} {
		if got := tCritical975(tc.df); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("t(0.975, %d) = %v, want %v", tc.df, got, tc.want)
		}
	}
	// The two methods agree where tCritical975 switches between them.
	for _, df := range []int{cornishFisherFrom - 1, cornishFisherFrom} {
		a := tCritical975(df)
		if b := tCornishFisher(z975, float64(df)); math.Abs(a-b) > 1e-12 {
			t.Errorf("df %d: series %v, Cornish-Fisher %v", df, a, b)
		}
	}
}

func TestSummaryNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.1 + 0.2, "0.3"}, {2.0 / 3, "0.666666666667"}, {44, "44"}, {1234567.891234567, "1234567.89123"},
		{0.6, "0.6"}, {0, "0"},
	} {
		if got := summaryNumber(tc.v); got != tc.want {
			t.Errorf("summaryNumber(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// Library must name the version go.mod pins, since summaries record it.
func TestLibraryMatchesGoMod(t *testing.T) {
	mod := string(readFile(t, "../go.mod"))
	for _, line := range strings.Split(mod, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && f[0] == "github.com/montanaflynn/stats" {
			if got := f[0] + " " + f[1]; got != Library {
				t.Errorf("go.mod requires %s, Library says %s", got, Library)
			}
			return
		}
	}
	t.Error("go.mod does not require github.com/montanaflynn/stats")
}

// One runtime and one scenario: their columns would say nothing.
func TestWriteTableOneRuntime(t *testing.T) {
	var rows []Row
	for _, r := range sampleRows() {
		if r.Runtime == "sim" {
			rows = append(rows, r)
		}
	}
	var b bytes.Buffer
	if err := WriteTable(&b, Summarize(rows), TableOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"algorithm  variant  nodes  trials  messages_median  theory_messages  turnaround_t_median  correct%  live%  unsafe_trials\n" +
		"lcr        -            8       6               44               44                11.12     100.0  100.0              0\n" +
		"lcr        -           16       1              152              152                23.00     100.0  100.0              0\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The table counts the trials with a safety violation (not the
// violations), shows the failover median when leaders crashed, and the
// failing trials follow it with their seeds, capped.
func TestWriteTableVerdicts(t *testing.T) {
	var rows []Row
	for i := range 5 {
		r := Row{Algorithm: "bully", Variant: "classic", Runtime: "sim", Scenario: "adhoc", Nodes: 8, Trial: i,
			Seed: uint64(100 + i), Messages: 105, TurnaroundT: Some(3.0), Correct: true, Live: true}
		if i < 3 {
			r.SafetyViolations, r.Violation = 8, "wrong-leader at 1.5ms"
		}
		if i == 4 {
			r.Live = false
		}
		r.FailoverT = Some(float64(10 + i))
		rows = append(rows, r)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, Summarize(rows), TableOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"algorithm  variant  nodes  trials  messages_median  theory_messages  turnaround_t_median  correct%  live%  unsafe_trials  failover_t_median\n" +
		"bully      classic      8       5              105                -                 3.00     100.0   80.0              3              12.00\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteFailingTrials(&b, RowsOf(rows), 2, nil, nil); err != nil {
		t.Fatal(err)
	}
	want = "\nunsafe or not live trials:\n" +
		"  bully/classic sim adhoc N=8 trial 0 (seed 100): 8 safety violation(s): wrong-leader at 1.5ms\n" +
		"  bully/classic sim adhoc N=8 trial 1 (seed 101): 8 safety violation(s): wrong-leader at 1.5ms\n" +
		"  ... and 2 more (the violation column of results.csv lists every trial)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteFailingTrials(&b, RowsOf(rows[3:4]), 2, nil, nil); err != nil || b.Len() != 0 {
		t.Errorf("a safe, live trial is listed: %q %v", b.String(), err)
	}
	// Written twice, after more rows: the list as it then stands, its
	// "... and N more" once.
	f := FailingTrials{Limit: 2}
	for i := range rows[:4] {
		f.Add(&rows[i])
	}
	b.Reset()
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	f.Add(&rows[4])
	b.Reset()
	if err := f.Write(&b); err != nil || b.String() != want {
		t.Errorf("written again after every row: got\n%s\nwant\n%s (%v)", b.String(), want, err)
	}
}

// The narrow table: short titles, and at a stated width its least needed
// columns left out, named under it, until it fits; the wide form keeps
// every column whatever the width.
func TestWriteTableFits(t *testing.T) {
	groups := Summarize(sampleRows())
	var wide, narrow, fit bytes.Buffer
	if err := WriteTable(&wide, groups, TableOptions{Wide: true, Width: 40}); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&narrow, groups, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&fit, groups, TableOptions{Width: 66}); err != nil {
		t.Fatal(err)
	}
	widest := func(s string) int {
		w := 0
		for _, l := range strings.Split(s, "\n") {
			w = max(w, utf8.RuneCountInString(l))
		}
		return w
	}
	if !strings.Contains(wide.String(), "messages_median") || strings.Contains(wide.String(), "left out") {
		t.Errorf("wide form:\n%s", wide.String())
	}
	if !strings.HasPrefix(narrow.String(), "algorithm") || !strings.Contains(narrow.String(), "msgs") || widest(narrow.String()) >= widest(wide.String()) {
		t.Errorf("narrow form is not narrower:\n%s", narrow.String())
	}
	lines := strings.Split(strings.TrimSuffix(fit.String(), "\n"), "\n")
	note := lines[len(lines)-1]
	if !strings.HasPrefix(note, "(") || !strings.Contains(note, "left out to fit 66 columns; --print wide shows every column)") {
		t.Errorf("no note of what was left out:\n%s", fit.String())
	}
	if w := widest(strings.Join(lines[:len(lines)-1], "\n")); w > 66 {
		t.Errorf("table %d wide at width 66:\n%s", w, fit.String())
	}
}

// Lines for people carry identities and figures shortened; the rows keep
// them whole.
func TestForPeople(t *testing.T) {
	id := strings.Repeat("ab", 32)
	for in, want := range map[string]string{
		"process 4 (id " + id + ") decided " + id:        "process 4 (id abababab…) decided abababab…",
		"crash at t=1.610507511s and 333.3333333333333T": "crash at t=1.611s and 333.3T",
		"wrong-leader at 1.5ms: 12 and 2.25T":            "wrong-leader at 1.5ms: 12 and 2.25T",
	} {
		if got := ForPeople(in); got != want {
			t.Errorf("ForPeople(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDescribeSortsOnce: describe sorts its values once and hands the
// sorted copy to the library, whose own sorts of it then change nothing;
// every figure is the same bits as the library's on the values in trial
// order (what summary.csv held before, issue 42), ties and runs of equal
// values (message counts) included.
func TestDescribeSortsOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for _, n := range []int{1, 2, 5, 6, 13, 100, 1001, 10_000} {
		xs := make([]float64, n)
		for i := range xs {
			if i%3 == 0 {
				xs[i] = float64(rng.IntN(8)) // ties, as message counts have
			} else {
				xs[i] = rng.ExpFloat64() * 1e-3
			}
		}
		in := slices.Clone(xs)
		got := describe(xs)
		if !slices.Equal(xs, in) {
			t.Fatalf("n=%d: describe reordered its input", n)
		}
		data := stats.Float64Data(in)
		want := map[string]float64{
			"median": must(stats.Median(data)), "p95": must(stats.Percentile(data, 95)),
			"p99": must(stats.Percentile(data, 99)), "min": must(stats.Min(data)), "max": must(stats.Max(data)),
		}
		for name, v := range map[string]Opt[float64]{"median": got.Median, "p95": got.P95, "p99": got.P99, "min": got.Min, "max": got.Max} {
			if math.Float64bits(v.Get()) != math.Float64bits(want[name]) {
				t.Errorf("n=%d %s: %v, the library on trial order %v", n, name, v.Get(), want[name])
			}
		}
		sorted := slices.Clone(in)
		slices.Sort(sorted)
		if l, u, ok := medianCIRanks(n); ok && (got.MedianLow.Get() != sorted[l-1] || got.MedianHigh.Get() != sorted[u-1]) {
			t.Errorf("n=%d: median interval %v..%v, want the order statistics %v..%v", n, got.MedianLow.Get(), got.MedianHigh.Get(), sorted[l-1], sorted[u-1])
		}
	}
}
