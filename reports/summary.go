package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/montanaflynn/stats"
)

// Library names the statistics package and the version go.mod pins; every
// summary records it (TestLibraryMatchesGoMod keeps the two in step).
const Library = "github.com/montanaflynn/stats v0.14.0"

// Method says how the summary statistics are computed; every summary records
// it next to Library.
const Method = "mean=arithmetic; median=middle value or mean of the middle two; " +
	"p95,p99=stats.Percentile: linear interpolation between closest ranks, rank=p/100*(n-1) (Hyndman-Fan type 7, R and NumPy default); " +
	"stddev=sample (n-1); ci95=mean +/- t(0.975, n-1)*stddev/sqrt(n) (Student t); " +
	"values=trials without error whose cell is set and finite; numbers rounded to 12 significant digits"

// Group summarises the trials of one configuration: rows sharing algorithm,
// variant, runtime, scenario and nodes.
type Group struct {
	Algorithm string
	Variant   string
	Runtime   string
	Scenario  string
	Nodes     int

	Trials           int        // rows in the group
	Errors           int        // rows whose trial could not run or complete
	CorrectShare     float64    // share of all Trials that were correct
	LiveShare        float64    // share of all Trials that were live
	SafetyViolations int        // total over the group
	UnsafeTrials     int        // trials with at least one safety violation
	TheoryMessages   Opt[int64] // set when every row gives the same figure

	Messages    Stat
	TurnaroundT Stat
	TurnaroundS Stat
	DecidedT    Stat
	// FailoverT describes failover_t where leaders crash (N is 0 where
	// none did). Not written to summary.csv or summary.json, whose columns
	// are fixed; the terminal table and the report show it.
	FailoverT Stat
}

// Stat describes one metric over the trials of a group that report it: rows
// without an error whose value is set and finite. Everything is unset when N
// is 0, and StdDev and the confidence interval when N is 1.
type Stat struct {
	N      int
	Mean   Opt[float64]
	Median Opt[float64]
	P95    Opt[float64]
	P99    Opt[float64]
	Min    Opt[float64]
	Max    Opt[float64]
	StdDev Opt[float64] // sample standard deviation
	CILow  Opt[float64] // 95% confidence interval of the mean
	CIHigh Opt[float64]

	// MedianLow and MedianHigh are a distribution-free 95% confidence
	// interval of the median: two order statistics (medianCIRanks). Unset
	// below 6 values, where no pair of order statistics reaches 95%. Not
	// written to summary.csv or summary.json, whose columns are fixed.
	MedianLow  Opt[float64]
	MedianHigh Opt[float64]
}

// metrics are the summarised columns, in output order.
var metrics = []struct {
	name  string
	value func(r *Row) Opt[float64]
	stat  func(g *Group) *Stat
}{
	{"messages", (*Row).MessagesSeen, func(g *Group) *Stat { return &g.Messages }},
	{"turnaround_t", func(r *Row) Opt[float64] { return r.TurnaroundT }, func(g *Group) *Stat { return &g.TurnaroundT }},
	{"turnaround_s", func(r *Row) Opt[float64] { return r.TurnaroundS }, func(g *Group) *Stat { return &g.TurnaroundS }},
	{"decided_t", func(r *Row) Opt[float64] { return r.DecidedT }, func(g *Group) *Stat { return &g.DecidedT }},
}

// metricTurnaroundT and metricDecidedT are the places of turnaround_t
// and decided_t in metrics.
const (
	metricMessages    = 0
	metricTurnaroundT = 1
	metricDecidedT    = 3
)

type groupKey struct {
	algorithm, variant, runtime, scenario string
	nodes                                 int
}

// Summarize groups rows by algorithm, variant, runtime, scenario and nodes,
// in the order each group first appears, and describes each group.
func Summarize(rows []Row) []Group {
	var s Summarizer
	for i := range rows {
		s.Add(&rows[i])
	}
	return s.Groups()
}

// Summarizer is Summarize over rows handed to it one at a time (a results
// file read as a stream, ScanFile): it keeps of each row its group's
// tallies and the figures the summary describes, some 40 bytes, not the
// row (648). The zero Summarizer is ready to use.
type Summarizer struct {
	index  map[groupKey]int
	groups []Group
	tally  []groupTally
}

// groupTally is what Summarizer keeps of one group's rows: counts, and
// each metric's values in the order of the rows (a mean sums them in that
// order, so the figures are the same bits as over the rows).
type groupTally struct {
	correct, live int
	theoryMixed   bool
	values        [][]float64 // per metric, then failover_t
}

// Add counts r in its group.
func (s *Summarizer) Add(r *Row) {
	k := groupKey{r.Algorithm, r.Variant, r.Runtime, r.Scenario, r.Nodes}
	if s.index == nil {
		s.index = map[groupKey]int{}
	}
	gi, ok := s.index[k]
	if !ok {
		gi = len(s.groups)
		s.index[k] = gi
		s.groups = append(s.groups, Group{Algorithm: r.Algorithm, Variant: r.Variant,
			Runtime: r.Runtime, Scenario: r.Scenario, Nodes: r.Nodes, TheoryMessages: r.TheoryMessages})
		s.tally = append(s.tally, groupTally{values: make([][]float64, len(metrics)+1)})
	}
	g, t := &s.groups[gi], &s.tally[gi]
	g.Trials++
	if r.Error != "" {
		g.Errors++
	}
	if r.Correct {
		t.correct++
	}
	if r.Live {
		t.live++
	}
	g.SafetyViolations += r.SafetyViolations
	if r.SafetyViolations > 0 {
		g.UnsafeTrials++
	}
	if r.TheoryMessages != g.TheoryMessages {
		t.theoryMixed = true
	}
	// A trial that failed to run says nothing about the algorithm.
	if r.Error != "" {
		return
	}
	for i, m := range metrics {
		t.values[i] = appendValue(t.values[i], m.value(r))
	}
	t.values[len(metrics)] = appendValue(t.values[len(metrics)], r.FailoverT)
}

// Groups describes the groups of the rows added so far, in the order
// each first appeared.
func (s *Summarizer) Groups() []Group {
	out := slices.Clone(s.groups)
	for gi := range out {
		g, t := &out[gi], &s.tally[gi]
		if t.theoryMixed {
			g.TheoryMessages = Opt[int64]{}
		}
		g.CorrectShare = float64(t.correct) / float64(g.Trials)
		g.LiveShare = float64(t.live) / float64(g.Trials)
		for i, m := range metrics {
			*m.stat(g) = describe(t.values[i])
		}
		g.FailoverT = describe(t.values[len(metrics)])
	}
	return out
}

// describe computes a Stat of xs with montanaflynn/stats and tCritical975.
func describe(xs []float64) Stat {
	s := Stat{N: len(xs)}
	if s.N == 0 {
		return s
	}
	data := stats.Float64Data(xs)
	s.Mean = Some(must(stats.Mean(data)))
	// The median, the percentiles and the median's interval each sort a
	// copy: sorted once here, the library's sorts of it are a pass that
	// finds it sorted and leaves it as it is (sort.Float64s, as the
	// library's own copy is sorted), so the figures are the same bits
	// for a fifth of the sorting (issue 42: four sorts of every metric
	// were 5% of a 10,000-trial run).
	sorted := slices.Clone(xs)
	sort.Float64s(sorted)
	s.Median = Some(must(stats.Median(sorted)))
	s.P95 = Some(must(stats.Percentile(sorted, 95)))
	s.P99 = Some(must(stats.Percentile(sorted, 99)))
	s.Min = Some(must(stats.Min(data)))
	s.Max = Some(must(stats.Max(data)))
	s.MedianLow, s.MedianHigh = medianCI(sorted)
	if s.N < 2 {
		return s
	}
	sd := must(stats.StandardDeviationSample(data))
	s.StdDev = Some(sd)
	// The explicit conversion keeps the compiler from fusing the multiply
	// into the add on some architectures.
	half := float64(tCritical975(s.N-1) * sd / math.Sqrt(float64(s.N)))
	s.CILow = Some(s.Mean.Get() - half)
	s.CIHigh = Some(s.Mean.Get() + half)
	return s
}

// must unwraps a statistic describe has already made well defined: a
// non-empty, NaN-free input and a percent in (0, 100].
func must(v float64, err error) float64 {
	if err != nil {
		panic(fmt.Sprintf("reports: montanaflynn/stats failed on checked input: %v", err))
	}
	return v
}

// summaryColumns is the header of summary.csv.
var summaryColumns = func() []string {
	cols := []string{"algorithm", "variant", "runtime", "scenario", "nodes",
		"trials", "errors", "correct_share", "live_share", "safety_violations", "theory_messages"}
	for _, m := range metrics {
		for _, s := range statNames {
			cols = append(cols, m.name+"_"+s)
		}
	}
	return append(cols, "method", "library")
}()

// statNames name a Stat's fields in output order.
var statNames = []string{"n", "mean", "median", "p95", "p99", "min", "max", "stddev", "ci95_low", "ci95_high"}

func (s *Stat) values() []Opt[float64] {
	return []Opt[float64]{s.Mean, s.Median, s.P95, s.P99, s.Min, s.Max, s.StdDev, s.CILow, s.CIHigh}
}

// summaryNumber formats a summary figure: rounded to 12 significant digits,
// then written like every results float. The rounding hides the last-bit
// differences fused multiply-add gives on some CPUs (Go may fuse on arm64),
// so the same rows give the same summary everywhere.
func summaryNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return FormatFloat(v)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return FormatFloat(r)
}

func optSummaryNumber(o Opt[float64]) string {
	if !o.IsSet() {
		return ""
	}
	return summaryNumber(o.Get())
}

// WriteSummaryCSV writes groups as summary.csv: one line per group, every
// Stat flattened to METRIC_STAT columns, and Method and Library in the last
// two columns of every line.
func WriteSummaryCSV(out io.Writer, groups []Group) error {
	var b bytes.Buffer
	b.Write(encodeRecord(summaryColumns))
	for i := range groups {
		g := &groups[i]
		rec := []string{g.Algorithm, g.Variant, g.Runtime, g.Scenario, strconv.Itoa(g.Nodes),
			strconv.Itoa(g.Trials), strconv.Itoa(g.Errors),
			summaryNumber(g.CorrectShare), summaryNumber(g.LiveShare),
			strconv.Itoa(g.SafetyViolations), g.TheoryMessages.String()}
		for _, m := range metrics {
			s := m.stat(g)
			rec = append(rec, strconv.Itoa(s.N))
			for _, v := range s.values() {
				rec = append(rec, optSummaryNumber(v))
			}
		}
		rec = append(rec, Method, Library)
		b.Write(encodeRecord(rec))
	}
	_, err := out.Write(b.Bytes())
	return err
}

// jsonNumber is a summary figure in JSON: null when unset.
type jsonNumber Opt[float64]

func (n jsonNumber) MarshalJSON() ([]byte, error) {
	v, ok := Opt[float64](n).Value()
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return []byte(summaryNumber(v)), nil
}

type jsonStat struct {
	N        int        `json:"n"`
	Mean     jsonNumber `json:"mean"`
	Median   jsonNumber `json:"median"`
	P95      jsonNumber `json:"p95"`
	P99      jsonNumber `json:"p99"`
	Min      jsonNumber `json:"min"`
	Max      jsonNumber `json:"max"`
	StdDev   jsonNumber `json:"stddev"`
	CI95Low  jsonNumber `json:"ci95_low"`
	CI95High jsonNumber `json:"ci95_high"`
}

func newJSONStat(s Stat) jsonStat {
	return jsonStat{s.N, jsonNumber(s.Mean), jsonNumber(s.Median), jsonNumber(s.P95),
		jsonNumber(s.P99), jsonNumber(s.Min), jsonNumber(s.Max), jsonNumber(s.StdDev),
		jsonNumber(s.CILow), jsonNumber(s.CIHigh)}
}

type jsonGroup struct {
	Algorithm        string     `json:"algorithm"`
	Variant          string     `json:"variant"`
	Runtime          string     `json:"runtime"`
	Scenario         string     `json:"scenario"`
	Nodes            int        `json:"nodes"`
	Trials           int        `json:"trials"`
	Errors           int        `json:"errors"`
	CorrectShare     jsonNumber `json:"correct_share"`
	LiveShare        jsonNumber `json:"live_share"`
	SafetyViolations int        `json:"safety_violations"`
	TheoryMessages   *int64     `json:"theory_messages"`
	Messages         jsonStat   `json:"messages"`
	TurnaroundT      jsonStat   `json:"turnaround_t"`
	TurnaroundS      jsonStat   `json:"turnaround_s"`
	DecidedT         jsonStat   `json:"decided_t"`
}

type jsonSummary struct {
	Method  string      `json:"method"`
	Library string      `json:"library"`
	Groups  []jsonGroup `json:"groups"`
}

// WriteSummaryJSON writes groups as summary.json: an object holding Method,
// Library and the groups, each Stat an object keyed as in summary.csv, unset
// figures null.
func WriteSummaryJSON(out io.Writer, groups []Group) error {
	doc := jsonSummary{Method: Method, Library: Library, Groups: make([]jsonGroup, len(groups))}
	for i, g := range groups {
		jg := jsonGroup{
			Algorithm: g.Algorithm, Variant: g.Variant, Runtime: g.Runtime,
			Scenario: g.Scenario, Nodes: g.Nodes, Trials: g.Trials, Errors: g.Errors,
			CorrectShare:     jsonNumber(Some(g.CorrectShare)),
			LiveShare:        jsonNumber(Some(g.LiveShare)),
			SafetyViolations: g.SafetyViolations,
			Messages:         newJSONStat(g.Messages),
			TurnaroundT:      newJSONStat(g.TurnaroundT),
			TurnaroundS:      newJSONStat(g.TurnaroundS),
			DecidedT:         newJSONStat(g.DecidedT),
		}
		if g.TheoryMessages.IsSet() {
			v := g.TheoryMessages.Get()
			jg.TheoryMessages = &v
		}
		doc.Groups[i] = jg
	}
	return writeIndented(out, doc)
}

// writeIndented writes v as indented JSON with '<', '>' and '&' as
// themselves, not escaped for HTML (people and jq read these files), in one
// Write so that a failing encoder leaves out untouched. The summary and the
// comparison documents both go through it.
func writeIndented(out io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := out.Write(b.Bytes())
	return err
}

// WriteSummaryFiles writes summary.csv into dir, and summary.json when
// formats include "json", each replaced atomically.
func WriteSummaryFiles(dir string, formats []string, groups []Group) error {
	wantJSON, err := checkFormats(formats)
	if err != nil {
		return err
	}
	err = writeFileAtomic(dir, filepath.Join(dir, SummaryCSV), func(out io.Writer) error {
		return WriteSummaryCSV(out, groups)
	})
	if err != nil || !wantJSON {
		return err
	}
	return writeFileAtomic(dir, filepath.Join(dir, SummaryJSON), func(out io.Writer) error {
		return WriteSummaryJSON(out, groups)
	})
}
