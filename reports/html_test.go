package reports

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// testdata/run holds a small simulated run with a crashed highest process
// and an inaccurate detector, so most trials fail (electbench run --algo
// ring,lcr,hs --nodes 4,6 --trials 3 --crash highest@start
// --detector 'inaccurate(0.05,0.3)' --trace trace.jsonl).
func readTestRun(t testing.TB) ([]Row, []byte) {
	t.Helper()
	rows, err := ReadFile("testdata/run/results.csv")
	if err != nil {
		t.Fatal(err)
	}
	trace, err := os.ReadFile("testdata/run/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return rows, trace
}

func renderTestReport(t testing.TB, faults func(*Row) []FaultWindow) []byte {
	t.Helper()
	rows, trace := readTestRun(t)
	var b bytes.Buffer
	err := WriteHTML(&b, RowsOf(rows), HTMLOptions{Source: "testdata/run/results.csv", Trace: bytes.NewReader(trace),
		TraceName: "trace.jsonl", Generator: "electbench test", Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// testFaults stands in for the fault schedule rows do not carry yet: a
// partition from 2T to 5T in every trial of six nodes.
func testFaults(r *Row) []FaultWindow {
	if r.Nodes != 6 {
		return nil
	}
	return []FaultWindow{{From: 2, Until: 5, Label: "partition {0,1,2}|{3,4,5}"}}
}

func TestReportHTMLGolden(t *testing.T) {
	a := renderTestReport(t, testFaults)
	b := renderTestReport(t, testFaults)
	if !bytes.Equal(a, b) {
		t.Fatal("two renderings of the same rows differ")
	}
	golden(t, "report.html.golden", a)
}

// externalRef finds anything a browser would fetch: a URL in src, href,
// url(...) or @import, other than the page's own anchors.
var externalRef = regexp.MustCompile(`(?i)(src|href)\s*=\s*"(?:[a-z]+:|//)|url\(\s*['"]?(?:[a-z]+:|//)|@import`)

func TestReportHTMLSelfContained(t *testing.T) {
	page := string(renderTestReport(t, nil))
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("the report refers outside itself: %q", m)
	}
	// The only URL is the SVG namespace, which is a name, not a fetch.
	for _, m := range regexp.MustCompile(`https?://[^"' )<]+`).FindAllString(page, -1) {
		if m != "http://www.w3.org/2000/svg" && m != "http://www.w3.org/1999/xlink" {
			t.Errorf("unexpected URL %q", m)
		}
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an SVG prelude was left inside the HTML")
	}
}

func TestReportHTMLContent(t *testing.T) {
	rows, _ := readTestRun(t)
	page := string(renderTestReport(t, testFaults))
	for _, want := range []string{
		`<section id="verdict">`, `<div class="verdict fail">`, `<section id="summary">`, `<table id="key-table"`,
		`<section id="choose">`, `<h3 id="messages">`, `<h3 id="times">`, `<h2 id="timeouts">`,
		`<h2 id="verdicts">`, `<h2 id="diagrams">`, `class="sortable"`, `<ul class="legend">`,
		`<svg class="lamport"`, `<rect class="fault"`, "fault windows",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The verdict comes first, the key numbers next.
	if v, k, c := strings.Index(page, `<section id="verdict">`), strings.Index(page, `<section id="summary">`), strings.Index(page, `<section id="choose">`); !(v < k && k < c) {
		t.Errorf("sections out of order: verdict at %d, key numbers at %d, charts at %d", v, k, c)
	}
	// A crash at the start under an inaccurate detector is no configuration
	// ALGORITHMS.md has a figure for: no closed form is drawn.
	for _, curve := range []string{"3N-1 (worst: successor of max initiates)", "N(N+1)/2+N (descending ids)", "8N(⌈log₂N⌉+2)+5N (bound)"} {
		if strings.Contains(page, curve) {
			t.Errorf("the closed form %q is drawn under a faulty run", curve)
		}
	}
	// Every failing trial is listed with its seed and violation, linked
	// from its group, with the trace around the violation.
	failing := 0
	for _, r := range rows {
		if !isFailing(&r) {
			continue
		}
		failing++
		head := r.Algorithm + "/" + r.Variant + " sim adhoc n=" + strconv.Itoa(r.Nodes) +
			" — trial " + strconv.Itoa(r.Trial) + ", seed " + strconv.FormatUint(r.Seed, 10)
		if !strings.Contains(page, head) {
			t.Errorf("failing trial %s not listed", r.Key())
		}
		if r.Violation != "" && !strings.Contains(page, esc(r.Violation)) {
			t.Errorf("violation %q not shown", r.Violation)
		}
	}
	if failing == 0 {
		t.Fatal("the test run has no failing trial")
	}
	if got := strings.Count(page, `<div class="trial" id="trial-`); got != failing {
		t.Errorf("%d failing trials listed, want %d", got, failing)
	}
	if !strings.Contains(page, "Trace, the events that led to the violation at") || !strings.Contains(page, `<b class="bad">── undecided at`) {
		t.Error("no trace excerpt marking a violation")
	}
}

// Closed forms are drawn under the configurations they describe: ring's
// envelopes and lcr's under fault-free runs with reference figures, bully's
// crash-case formula only where the rows report exactly it.
func TestReportTheoryCurvesApply(t *testing.T) {
	rows := syntheticRows(2000)
	var b bytes.Buffer
	if err := WriteHTML(&b, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, curve := range []string{"3N-1 (worst: successor of max initiates)", "N(N+1)/2+N (descending ids)"} {
		if !strings.Contains(page, curve) {
			t.Errorf("fault-free rings: %q not drawn", curve)
		}
	}
	// The synthetic bully rows report 3N-1, not the crash case's figure.
	if strings.Contains(page, "(lowest detects)") {
		t.Error("bully's crash-case formula drawn under runs without that crash")
	}
	for i := range rows {
		if rows[i].Algorithm == "bully" {
			n := int64(rows[i].Nodes)
			rows[i].TheoryMessages = Some(n*(n-1)/2 + (n-1)*(n-2)/2 + n - 2)
		}
	}
	b.Reset()
	if err := WriteHTML(&b, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "(lowest detects)") {
		t.Error("bully's crash-case formula not drawn where the rows report it")
	}
}

// The headline: all well in one line; otherwise the failed expectations
// (per trial and over trials) and, per algorithm, what broke.
func TestReportHeadline(t *testing.T) {
	rows := syntheticRows(1000)
	for i := range rows {
		rows[i].Correct, rows[i].Live, rows[i].Violation, rows[i].Leader = true, true, "", "x"
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<p class="verdict ok">All 1000 trials were correct and live`) {
		t.Error("a clean run's verdict is not one line saying so")
	}
	rows[3].SafetyViolations, rows[3].Correct = 2, false
	rows[3].Expect = "fail: safety violations 2 > 0"
	b.Reset()
	if err := WriteHTML(&b, RowsOf(rows), HTMLOptions{Expectations: []string{"halves: bully N=8 over 20 trials: p99 turnaround 9ms ≥ 5ms"}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<b>lcr (sim)</b>") {
		t.Error("lcr, every trial correct and live, is listed among the failing pairs")
	}
	for _, want := range []string{`<div class="verdict fail">`, "<b>2 expectations failed</b> (per scenario, algorithm and size)", "p99 turnaround 9ms",
		"adhoc: ring N=4: safety violations 2 &gt; 0 — failed in 1 trial; first, trial 3 (seed", "<b>ring (sim)</b>: 1 of ", "trials broke safety (2 violations)"} {
		if !strings.Contains(page, want) {
			t.Errorf("headline lacks %q", want)
		}
	}
	// A trial that is live and safe but not correct (a quorum trial whose
	// processes do not all agree) is no clean pair either.
	rows[3].SafetyViolations, rows[3].Expect = 0, ""
	b.Reset()
	if err := WriteHTML(&b, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<b>ring (sim)</b>: 1 of ") || !strings.Contains(b.String(), "trials live but not correct") {
		t.Error("a live, safe, incorrect trial is not named in the headline")
	}
}

func TestReportHTMLNoRows(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, RowsOf(nil), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No trials") {
		t.Error("an empty report does not say so")
	}
}

func TestWriteHTMLFile(t *testing.T) {
	rows, _ := readTestRun(t)
	path := t.TempDir() + "/" + ReportHTML
	if err := WriteHTMLFile(path, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteHTML(&want, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); !bytes.Equal(got, want.Bytes()) {
		t.Error("WriteHTMLFile differs from WriteHTML")
	}
}

// BenchmarkWriteHTML100k renders a report of 100,000 rows: 7 algorithms ×
// 8 sizes × 1,786 trials, with every 50th trial failing.
func BenchmarkWriteHTML100k(b *testing.B) {
	rows := syntheticRows(100000)
	b.ResetTimer()
	for b.Loop() {
		if err := WriteHTML(discard{}, RowsOf(rows), HTMLOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// syntheticRows makes n rows shaped like a large sweep.
func syntheticRows(n int) []Row {
	algs := []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs", "bully", "multicast"}
	sizes := []int{4, 8, 16, 32, 64, 128, 256, 512}
	perGroup := n / (len(algs) * len(sizes))
	rows := make([]Row, 0, n)
	for _, a := range algs {
		for _, size := range sizes {
			for i := 0; i < perGroup || (a == algs[len(algs)-1] && size == sizes[len(sizes)-1] && len(rows) < n); i++ {
				m := int64(3*size - 1 + (i*7919)%size)
				ta := float64(2*size + i%5)
				r := Row{Algorithm: a, Variant: "default", Runtime: "sim", Scenario: "adhoc", Nodes: size,
					Arrangement: "random", Initiators: "lowest", Trial: i, Seed: uint64(i)*2654435761 + uint64(size),
					Messages: m, MessagesByKind: Counts{{"ELECTED", int64(size)}, {"ELECTION", m - int64(size)}},
					Timeouts: int64(i % 3), TimeoutsByKind: Counts{{"T1", int64(i % 3)}},
					TurnaroundT: Some(ta), TurnaroundS: Some(ta / 1000), DecidedT: Some(ta - 1), DecidedS: Some((ta - 1) / 1000),
					Leader: strconv.Itoa(size), Correct: true, Live: true, TheoryMessages: Some(int64(3*size - 1)),
					Latency: "constant(1ms)", TS: 0.001, Events: 2 * m}
				if i%50 == 49 {
					r.Correct, r.Live, r.Leader = false, false, ""
					r.Violation = "undecided at 12ms: a live process never learned a leader"
				}
				rows = append(rows, r)
			}
		}
	}
	return rows
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// No chart stands for a single point: with one trial per configuration
// (as the default run's live part has) every figure is stated as a
// number, and no chart is drawn.
func TestReportNoSinglePointCharts(t *testing.T) {
	all, err := ReadFile("testdata/failover/results.csv")
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	for _, r := range all {
		if r.Trial == 0 {
			rows = append(rows, r)
		}
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, RowsOf(rows), HTMLOptions{Faults: FaultWindows}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, `<svg class="chart"`); n != 0 {
		t.Errorf("%d charts drawn for one trial per configuration", n)
	}
	if !strings.Contains(page, "One trial each: the values, not distributions.") || !strings.Contains(page, "One trial per configuration") {
		t.Error("the single values are not stated")
	}
}

// Trials not live as their scenario expects are no failures: the verdict
// stays clean, they are shown in grey with the scenario's description,
// and no failing-trial card lists them; a trial that breaks what was
// expected is still red.
func TestReportExpectedOutcomes(t *testing.T) {
	rows := syntheticRows(40)
	for i := range rows {
		rows[i].Correct, rows[i].Live, rows[i].Violation, rows[i].Leader, rows[i].Expect = true, true, "", "x", "pass"
		if i%2 == 0 {
			rows[i].Scenario, rows[i].Correct, rows[i].Live, rows[i].Leader, rows[i].Expect = "halves", false, false, "", ExpectNotLive
		}
	}
	var b bytes.Buffer
	opt := HTMLOptions{Descriptions: map[string]string{"halves": "no side holds a majority"}}
	if err := WriteHTML(&b, RowsOf(rows), opt); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<p class="verdict ok">All 40 trials were as their scenarios expect: 20 correct and live, 20 not live as expected`,
		`<div class="verdict expected">`, "<b>halves</b>: 20 of 20 trials — no side holds a majority"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, `verdict fail`) || strings.Contains(page, "failing trial") && strings.Contains(page, `id="trial-1"`) {
		t.Error("trials not live as expected are shown as failures")
	}
	rows[0].Expect, rows[0].Live = "fail: liveness never: the trial was live (leader x)", true
	b.Reset()
	if err := WriteHTML(&b, RowsOf(rows), opt); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, `<div class="verdict fail">`) || !strings.Contains(page, "liveness never") {
		t.Error("a broken expectation is not red")
	}
}
