package reports

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
)

// ReportHTML is the name of the report a run writes under its directory.
const ReportHTML = "report.html"

// HTMLOptions tune WriteHTML.
type HTMLOptions struct {
	Title     string // the page title; "electbench report" when empty
	Source    string // where the rows came from, named under the title
	Generator string // the program and version, named at the foot

	// Trace, when set, is a trace file as `electbench run --trace` writes
	// it: it adds the events around each failing trial's violation and
	// message-sequence diagrams of small trials. TraceName names it.
	Trace     io.Reader
	TraceName string

	// Faults gives the fault windows of a trial, shaded on the time axes of
	// its group's charts and of its diagram; FaultWindows reads them from
	// the faults column. Nil shades nothing.
	Faults func(r *Row) []FaultWindow

	// MaxFailing bounds the failing trials listed in detail (0: 200).
	MaxFailing int
	// MaxDiagrams bounds the message-sequence diagrams (0: 8).
	MaxDiagrams int
}

// WriteHTMLFile writes the report of rows to path, replaced atomically.
func WriteHTMLFile(path string, rows []Row, opt HTMLOptions) error {
	return writeFileAtomic(filepath.Dir(path), path, func(out io.Writer) error {
		return WriteHTML(out, rows, opt)
	})
}

// reportGroup is a Group with its rows and anchor.
type reportGroup struct {
	Group
	rows   []*Row
	anchor string
}

// series is the groups of one algorithm and variant on one runtime and
// scenario, in increasing N: one line on a chart.
type series struct {
	label     string
	algorithm string
	groups    []*reportGroup
}

// failing is a trial that was not correct, not live, broke safety or could
// not run.
type failing struct {
	row    *Row
	group  *reportGroup
	anchor string
	trace  *TraceTrial
}

// WriteHTML writes the report of rows as one self-contained HTML page (see
// html_page.go): a summary table; median messages against N per algorithm
// on log scales with ALGORITHMS.md's curves and the rows' theory_messages
// and theory_bound; the distributions of turnaround and decided time and of
// timeouts; the verdicts per group with every failing trial's seed,
// violation and, given a trace, the events around it; and message-sequence
// diagrams of small trials from the trace. The same rows and trace give the
// same bytes.
func WriteHTML(out io.Writer, rows []Row, opt HTMLOptions) error {
	if opt.Title == "" {
		opt.Title = "electbench report"
	}
	if opt.MaxFailing <= 0 {
		opt.MaxFailing = 200
	}
	if opt.MaxDiagrams <= 0 {
		opt.MaxDiagrams = 8
	}
	groups := reportGroups(rows)
	allSeries := groupSeries(groups)
	fails := failingTrials(groups)

	var diagrams []*TraceTrial
	if opt.Trace != nil {
		var err error
		if diagrams, err = attachTrace(opt, rows, fails); err != nil {
			return &TraceError{Name: cmpOr(opt.TraceName, "trace"), Err: err}
		}
	}

	p := newPage(opt.Title)
	writeMeta(p, rows, groups, opt)
	p.WriteString(`<nav><a href="#summary">Summary</a><a href="#messages">Messages</a><a href="#times">Turnaround and decided</a><a href="#timeouts">Timeouts</a><a href="#verdicts">Verdicts</a>`)
	if opt.Trace != nil {
		p.WriteString(`<a href="#diagrams">Message sequences</a>`)
	}
	p.WriteString("</nav>\n")
	if len(rows) == 0 {
		p.WriteString("<p class=\"note\">No trials in these results.</p>\n")
		_, err := io.WriteString(out, p.finish())
		return err
	}
	writeSummaryTable(p, groups)
	if err := writeMessageCharts(p, allSeries); err != nil {
		return err
	}
	if err := writeTimeCharts(p, allSeries, opt.Faults); err != nil {
		return err
	}
	if err := writeTimeouts(p, allSeries); err != nil {
		return err
	}
	writeVerdicts(p, groups, fails, opt)
	if opt.Trace != nil {
		writeDiagrams(p, diagrams, rows, opt)
	}
	p.WriteString("<h2 id=\"method\">Method</h2>\n<p class=\"note\">Statistics over trials without an error whose figure is set. " +
		"Median 95% interval: distribution-free, the order statistics at the binomial(n, ½) ranks (none below 6 trials). " +
		esc(Method) + ". Charts: gonum.org/v1/plot, SVG.")
	if opt.Generator != "" {
		p.WriteString(" Written by " + esc(opt.Generator) + ".")
	}
	p.WriteString("</p>\n")
	_, err := io.WriteString(out, p.finish())
	return err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func reportGroups(rows []Row) []*reportGroup {
	sum := Summarize(rows)
	index := map[groupKey]*reportGroup{}
	out := make([]*reportGroup, len(sum))
	for i, g := range sum {
		rg := &reportGroup{Group: g, anchor: "g" + strconv.Itoa(i+1)}
		out[i] = rg
		index[groupKey{g.Algorithm, g.Variant, g.Runtime, g.Scenario, g.Nodes}] = rg
	}
	for i := range rows {
		r := &rows[i]
		g := index[groupKey{r.Algorithm, r.Variant, r.Runtime, r.Scenario, r.Nodes}]
		g.rows = append(g.rows, r)
	}
	return out
}

// groupSeries puts groups into series by algorithm, variant, runtime and
// scenario, in first-appearance order, each sorted by N.
func groupSeries(groups []*reportGroup) []*series {
	type key struct{ a, v, r, s string }
	index := map[key]*series{}
	var out []*series
	runtimes, scenarios := map[string]bool{}, map[string]bool{}
	for _, g := range groups {
		runtimes[g.Runtime] = true
		scenarios[g.Scenario] = true
	}
	for _, g := range groups {
		k := key{g.Algorithm, g.Variant, g.Runtime, g.Scenario}
		s := index[k]
		if s == nil {
			label := g.Algorithm
			if g.Variant != "" && g.Variant != "default" {
				label += "/" + g.Variant
			}
			var extra []string
			if len(runtimes) > 1 {
				extra = append(extra, g.Runtime)
			}
			if len(scenarios) > 1 {
				extra = append(extra, g.Scenario)
			}
			if len(extra) > 0 {
				label += " (" + strings.Join(extra, ", ") + ")"
			}
			s = &series{label: label, algorithm: g.Algorithm}
			index[k] = s
			out = append(out, s)
		}
		s.groups = append(s.groups, g)
	}
	for _, s := range out {
		slices.SortStableFunc(s.groups, func(a, b *reportGroup) int { return a.Nodes - b.Nodes })
	}
	return out
}

func isFailing(r *Row) bool {
	return !r.Correct || !r.Live || r.SafetyViolations > 0 || r.Error != ""
}

func failingTrials(groups []*reportGroup) []*failing {
	var out []*failing
	for _, g := range groups {
		for _, r := range g.rows {
			if isFailing(r) {
				out = append(out, &failing{row: r, group: g, anchor: "trial-" + strconv.Itoa(len(out)+1)})
			}
		}
	}
	return out
}

// attachTrace reads the trace once: the excerpt around each listed failing
// trial's violation, and the events of up to MaxDiagrams small trials —
// failing ones first come, then the first trial of each configuration.
func attachTrace(opt HTMLOptions, rows []Row, fails []*failing) ([]*TraceTrial, error) {
	byKey := map[traceKey]*failing{}
	for i, f := range fails {
		if i >= opt.MaxFailing {
			break
		}
		byKey[rowTraceKey(f.row)] = f
	}
	seenConfig := map[string]bool{}
	drawn := map[traceKey]bool{}
	trials, err := readTrace(opt.Trace, func(h TraceHeader) (traceWant, bool) {
		w := traceWant{around: -1}
		f := byKey[h.key()]
		if f != nil {
			w.around = math.MaxInt64
			if at, ok := violationTime(f.row.Violation); ok {
				w.around = at
			}
		}
		config := fmt.Sprintf("%s/%s/%d", h.Algorithm, h.Variant, h.Nodes)
		if h.Nodes <= DiagramMaxNodes && len(drawn) < opt.MaxDiagrams && (f != nil || !seenConfig[config]) {
			seenConfig[config] = true
			drawn[h.key()] = true
			// One more than drawn, so a trial over the limit shows as truncated.
			w.max = DiagramMaxEvents + 1
		}
		return w, w.max > 0 || w.around >= 0
	})
	if err != nil {
		return nil, err
	}
	var out []*TraceTrial
	for _, t := range trials {
		if f := byKey[t.key()]; f != nil && f.trace == nil {
			f.trace = t
		}
		if drawn[t.key()] {
			out = append(out, t)
		}
	}
	return out, nil
}

func writeMeta(p *page, rows []Row, groups []*reportGroup, opt HTMLOptions) {
	algs, runtimes, scenarios := []string{}, []string{}, []string{}
	for _, g := range groups {
		for _, x := range []struct {
			list *[]string
			v    string
		}{{&algs, g.Algorithm}, {&runtimes, g.Runtime}, {&scenarios, g.Scenario}} {
			if !slices.Contains(*x.list, x.v) {
				*x.list = append(*x.list, x.v)
			}
		}
	}
	p.WriteString("<p class=\"meta\">")
	if opt.Source != "" {
		p.WriteString("Results: <code>" + esc(opt.Source) + "</code> · ")
	}
	fmt.Fprintf(p, "%d trials in %d groups · algorithms: %s · runtime: %s · scenario: %s",
		len(rows), len(groups), esc(strings.Join(algs, ", ")), esc(strings.Join(runtimes, ", ")),
		esc(strings.Join(scenarios, ", ")))
	if n := BudgetHits(rows); n > 0 {
		fmt.Fprintf(p, " · <strong>%d stopped by a budget</strong> (--max-events, --max-inflight: not live; the error column says where)", n)
	}
	if opt.Trace != nil {
		p.WriteString(" · trace: <code>" + esc(cmpOr(opt.TraceName, "given")) + "</code>")
	}
	p.WriteString("</p>\n")
}

// groupTheoryBound is the rows' theory_bound when they all agree.
func groupTheoryBound(g *reportGroup) Opt[int64] {
	var b Opt[int64]
	for i, r := range g.rows {
		if i == 0 {
			b = r.TheoryBound
		} else if r.TheoryBound != b {
			return Opt[int64]{}
		}
	}
	return b
}

func groupTimeouts(g *reportGroup) []float64 {
	var xs []float64
	for _, r := range g.rows {
		if r.Error == "" {
			xs = append(xs, float64(r.Timeouts))
		}
	}
	return xs
}

func optInt(o Opt[int64]) cell {
	if !o.Set {
		return cell{text: "-", num: true}
	}
	return cell{text: strconv.FormatInt(o.V, 10), num: true, v: float64(o.V), hasV: true}
}

func ciText(s Stat) cell {
	if !s.MedianLow.Set {
		return cell{text: "-", num: true, title: "fewer than 6 trials"}
	}
	return cell{text: "[" + fixedText(s.MedianLow.V, 2) + ", " + fixedText(s.MedianHigh.V, 2) + "]",
		num: true, v: s.MedianLow.V, hasV: true}
}

func writeSummaryTable(p *page, groups []*reportGroup) {
	p.WriteString("<h2 id=\"summary\">Summary</h2>\n<p class=\"note\">One line per algorithm, variant, runtime, scenario and size. Click a heading to sort.</p>\n")
	head := []string{"algorithm", "variant", "runtime", "scenario", "nodes", "trials", "errors", "correct %", "live %",
		"safety violations", "messages median", "messages median 95% CI", "messages mean", "theory_messages",
		"theory_bound", "turnaround_t median", "decided_t median", "timeouts mean"}
	var rows [][]cell
	for _, g := range groups {
		to := describe(groupTimeouts(g))
		rows = append(rows, []cell{
			rawCell(`<a href="#` + g.anchor + `">` + esc(g.Algorithm) + `</a>`), textCell(g.Variant),
			textCell(g.Runtime), textCell(g.Scenario), intCell(g.Nodes), intCell(g.Trials), intCell(g.Errors),
			floatCell(100*g.CorrectShare, 1), floatCell(100*g.LiveShare, 1), intCell(g.SafetyViolations),
			optCell(g.Messages.Median, 1), ciText(g.Messages), optCell(g.Messages.Mean, 1),
			optInt(g.TheoryMessages), optInt(groupTheoryBound(g)),
			optCell(g.TurnaroundT.Median, 2), optCell(g.DecidedT.Median, 2), optCell(to.Mean, 2),
		})
	}
	p.tableID("summary-table", "sortable", head, rows)
}

func writeMessageCharts(p *page, all []*series) error {
	p.WriteString("<h2 id=\"messages\">Messages against N</h2>\n<p class=\"note\">Median messages per size on log scales; bars span the smallest and largest trial. " +
		"Dashed lines: ALGORITHMS.md's closed forms; rings: the theory_messages and theory_bound the rows report for their configuration.</p>\n<div class=\"charts\">\n")
	var ov []overviewSeries
	for _, s := range all {
		o := overviewSeries{label: s.label}
		for _, g := range s.groups {
			if g.Messages.Median.Set {
				o.pts = append(o.pts, plotter.XY{X: float64(g.Nodes), Y: g.Messages.Median.V})
			}
		}
		ov = append(ov, o)
	}
	if len(all) > 1 {
		svg, err := overviewChart(ov)
		if err != nil {
			return err
		}
		figure(p, svg)
	}
	for _, s := range all {
		var pts []messagePoint
		for _, g := range s.groups {
			if !g.Messages.Median.Set {
				continue
			}
			pts = append(pts, messagePoint{n: g.Nodes, median: g.Messages.Median.V, min: g.Messages.Min.V,
				max: g.Messages.Max.V, theory: g.TheoryMessages, bound: groupTheoryBound(g)})
		}
		svg, err := messagesChart(s.algorithm, pts)
		if err != nil {
			return err
		}
		if s.label != s.algorithm {
			svg = strings.Replace(svg, ">"+esc(s.algorithm)+": messages vs N<", ">"+esc(s.label)+": messages vs N<", 1)
		}
		figure(p, svg)
	}
	p.WriteString("</div>\n")
	return nil
}

func figure(p *page, svg string) {
	if svg == "" {
		return
	}
	p.WriteString("<figure>\n" + svg + "</figure>\n")
}

// seriesFaults is the union of the fault windows of a series' rows, in
// order of first appearance.
func seriesFaults(s *series, faults func(*Row) []FaultWindow) []FaultWindow {
	if faults == nil {
		return nil
	}
	var out []FaultWindow
	for _, g := range s.groups {
		for _, r := range g.rows {
			for _, f := range faults(r) {
				if !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

func writeTimeCharts(p *page, all []*series, faults func(*Row) []FaultWindow) error {
	p.WriteString("<h2 id=\"times\">Turnaround and decided</h2>\n<p class=\"note\">Distribution per size, in units of the mean latency T: box from the first to the third quartile, line at the median, whiskers to 1.5 IQR, outliers as points. Shaded bands: fault windows.</p>\n<div class=\"charts\">\n")
	for _, s := range all {
		fw := seriesFaults(s, faults)
		for _, m := range []struct {
			name string
			val  func(r *Row) Opt[float64]
		}{
			{"turnaround_t", func(r *Row) Opt[float64] { return r.TurnaroundT }},
			{"decided_t", func(r *Row) Opt[float64] { return r.DecidedT }},
		} {
			var samples []boxSample
			for _, g := range s.groups {
				samples = append(samples, boxSample{n: g.Nodes, values: metricValues(g.rows, m.val)})
			}
			svg, err := boxChart(s.label+": "+m.name, m.name+" (T)", samples, true, fw)
			if err != nil {
				return err
			}
			figure(p, svg)
		}
	}
	p.WriteString("</div>\n")
	return nil
}

func writeTimeouts(p *page, all []*series) error {
	p.WriteString("<h2 id=\"timeouts\">Timeouts</h2>\n")
	any := false
	var rows [][]cell
	for _, s := range all {
		for _, g := range s.groups {
			kinds := map[string]int64{}
			var total int64
			for _, r := range g.rows {
				for _, kc := range r.TimeoutsByKind {
					kinds[kc.Kind] += kc.N
				}
				total += r.Timeouts
			}
			if total == 0 {
				continue
			}
			any = true
			to := describe(groupTimeouts(g))
			rows = append(rows, []cell{textCell(s.label), intCell(g.Nodes), intCell(g.Trials),
				optCell(to.Median, 1), optCell(to.Mean, 2), optCell(to.Max, 0),
				textCell(CountsFromMap(kinds).String())})
		}
	}
	if !any {
		p.WriteString("<p class=\"note\">No timer fired and no process was suspected in any trial.</p>\n")
		return nil
	}
	p.WriteString("<div class=\"charts\">\n")
	for _, s := range all {
		var samples []boxSample
		fired := false
		for _, g := range s.groups {
			xs := groupTimeouts(g)
			samples = append(samples, boxSample{n: g.Nodes, values: xs})
			fired = fired || slices.ContainsFunc(xs, func(v float64) bool { return v > 0 })
		}
		if !fired {
			continue
		}
		svg, err := boxChart(s.label+": timeouts", "timeouts per trial", samples, false, nil)
		if err != nil {
			return err
		}
		figure(p, svg)
	}
	p.WriteString("</div>\n")
	p.table("sortable", []string{"series", "nodes", "trials", "median", "mean", "max", "by kind (total)"}, rows)
	return nil
}

func writeVerdicts(p *page, groups []*reportGroup, fails []*failing, opt HTMLOptions) {
	p.WriteString("<h2 id=\"verdicts\">Verdicts</h2>\n<p class=\"note\">Correct: every non-faulty process decided the same leader, the non-faulty process of highest rank. Live: the election terminated. Failing trials are listed below with their seed and violation.</p>\n")
	p.WriteString("<table class=\"sortable\">\n<thead><tr><th>algorithm</th><th>variant</th><th>runtime</th><th>scenario</th><th>nodes</th><th>trials</th><th>correct</th><th>live</th><th>safety violations</th><th>errors</th><th>failing trials</th></tr></thead>\n<tbody>\n")
	firstFail := map[*reportGroup]*failing{}
	nFail := map[*reportGroup]int{}
	for _, f := range fails {
		if firstFail[f.group] == nil {
			firstFail[f.group] = f
		}
		nFail[f.group]++
	}
	for _, g := range groups {
		correct := int(math.Round(g.CorrectShare * float64(g.Trials)))
		live := int(math.Round(g.LiveShare * float64(g.Trials)))
		class := ""
		links := cell{text: "0", num: true, v: 0, hasV: true}
		if n := nFail[g]; n > 0 {
			class = "bad"
			links = cell{text: `<a href="#` + firstFail[g].anchor + `">` + strconv.Itoa(n) + `</a>`, raw: true, num: true, v: float64(n), hasV: true}
		}
		p.WriteString(strings.Replace(rowHTML(class, []cell{
			textCell(g.Algorithm), textCell(g.Variant), textCell(g.Runtime), textCell(g.Scenario),
			intCell(g.Nodes), intCell(g.Trials), verdictCell(correct, g.Trials), verdictCell(live, g.Trials),
			badCount(g.SafetyViolations), badCount(g.Errors), links,
		}), "<tr", `<tr id="`+g.anchor+`"`, 1))
	}
	p.WriteString("</tbody>\n</table>\n")
	if len(fails) == 0 {
		p.WriteString("<p class=\"good\">Every trial was correct and live, with no safety violation and no error.</p>\n")
		return
	}
	fmt.Fprintf(p, "<h3>Failing trials (%d)</h3>\n", len(fails))
	for i, f := range fails {
		if i >= opt.MaxFailing {
			fmt.Fprintf(p, "<p class=\"note\">… and %d more failing trials, not listed: see the results file.</p>\n", len(fails)-i)
			break
		}
		writeFailing(p, f, opt)
	}
}

func rowHTML(class string, cells []cell) string {
	var q page
	q.tableRow(class, cells)
	return q.String()
}

func verdictCell(ok, of int) cell {
	c := cell{text: strconv.Itoa(ok) + "/" + strconv.Itoa(of), num: true, v: float64(ok) / math.Max(1, float64(of)), hasV: true}
	if ok < of {
		c.classes = "bad"
	}
	return c
}

func badCount(n int) cell {
	c := intCell(n)
	if n > 0 {
		c.classes = "bad"
	}
	return c
}

func writeFailing(p *page, f *failing, opt HTMLOptions) {
	r := f.row
	var what []string
	if r.Error != "" {
		what = append(what, "error")
	}
	if !r.Correct {
		what = append(what, "not correct")
	}
	if !r.Live {
		what = append(what, "not live")
	}
	if r.SafetyViolations > 0 {
		what = append(what, fmt.Sprintf("%d safety violation(s)", r.SafetyViolations))
	}
	fmt.Fprintf(p, "<div class=\"trial\" id=\"%s\">\n<h3>%s/%s %s %s n=%d — trial %d, seed %d</h3>\n",
		f.anchor, esc(r.Algorithm), esc(r.Variant), esc(r.Runtime), esc(r.Scenario), r.Nodes, r.Trial, r.Seed)
	fmt.Fprintf(p, "<p><span class=\"bad\">%s</span> · arrangement %s · initiators %s · latency %s · leader %s · %d messages · <a href=\"#%s\">group</a></p>\n",
		esc(strings.Join(what, ", ")), esc(r.Arrangement), esc(r.Initiators), esc(r.Latency),
		esc(cmpOr(r.Leader, "none agreed")), r.Messages, f.group.anchor)
	if r.Violation != "" {
		p.WriteString("<p>Violation: <code>" + esc(r.Violation) + "</code></p>\n")
	}
	if r.Error != "" {
		p.WriteString("<p>Error: <code>" + esc(r.Error) + "</code></p>\n")
	}
	if opt.Faults != nil {
		for _, fw := range opt.Faults(r) {
			p.WriteString("<p>Fault: " + esc(faultTitle(fw)) + "</p>\n")
		}
	}
	switch {
	case f.trace != nil && len(f.trace.Excerpt) > 0:
		tNs := r.TS * 1e9
		what := "the trial's last events"
		if at, ok := violationTime(r.Violation); ok {
			what = "events around the violation at " + formatTraceTime(at, tNs)[2:]
		}
		fmt.Fprintf(p, "<p>Trace, %s (%d events in the trial):</p>\n<pre>", esc(what), f.trace.Total)
		at, hasAt := violationTime(r.Violation)
		for i, ev := range f.trace.Excerpt {
			p.WriteString(esc(describeEvent(ev, tNs)) + "\n")
			next := i+1 < len(f.trace.Excerpt)
			if hasAt && ev.T <= at && (!next || f.trace.Excerpt[i+1].T > at) {
				p.WriteString("<b class=\"bad\">── " + esc(r.Violation) + "</b>\n")
				hasAt = false
			}
		}
		p.WriteString("</pre>\n")
		if len(f.trace.Events) > 0 && !f.trace.Truncated {
			fmt.Fprintf(p, "<p><a href=\"#%s\">Message-sequence diagram</a></p>\n", diagramID(f.trace))
		}
	case opt.Trace != nil:
		p.WriteString("<p class=\"note\">The trace file has no events for this trial.</p>\n")
	}
	p.WriteString("</div>\n")
}

func diagramID(t *TraceTrial) string {
	id := fmt.Sprintf("seq-%s-%d-%d-%d", strings.ReplaceAll(t.Algorithm, " ", "_"), t.Nodes, t.Trial, t.Seed)
	if t.Runtime != "" {
		id += "-" + t.Runtime // the same trial may be drawn simulated and live
	}
	return id
}

func writeDiagrams(p *page, trials []*TraceTrial, rows []Row, opt HTMLOptions) {
	p.WriteString("<h2 id=\"diagrams\">Message sequences</h2>\n")
	fmt.Fprintf(p, "<p class=\"note\">Trials of at most %d nodes and %d events from the trace: one lane per process (ring or rank position), time downwards, an arrow per message from its send to its delivery. Triangles: initiations; dots: decisions; squares: timers. Hover for details.</p>\n",
		DiagramMaxNodes, DiagramMaxEvents)
	byKey := map[traceKey]*Row{}
	for i := range rows {
		byKey[rowTraceKey(&rows[i])] = &rows[i]
	}
	drawn := 0
	for _, t := range trials {
		if len(t.Events) == 0 {
			continue
		}
		r := byKey[t.key()]
		id := diagramID(t)
		live := ""
		if t.Runtime != "" {
			live = " (" + esc(t.Runtime) + ")"
		}
		fmt.Fprintf(p, "<h3 id=\"%s\">%s/%s n=%d — trial %d, seed %d%s</h3>\n", id, esc(t.Algorithm), esc(t.Variant), t.Nodes, t.Trial, t.Seed, live)
		if t.Truncated {
			fmt.Fprintf(p, "<p class=\"note\">%d events: too many for a diagram (at most %d).</p>\n", t.Total, DiagramMaxEvents)
			continue
		}
		var tNs float64
		var fw []FaultWindow
		if r != nil {
			tNs = r.TS * 1e9
			if opt.Faults != nil {
				fw = opt.Faults(r)
			}
			fmt.Fprintf(p, "<p class=\"meta\">%d messages, leader %s, %s</p>\n", r.Messages, esc(cmpOr(r.Leader, "none")), verdictWords(r))
		}
		p.WriteString(lamportDiagram(id, t, tNs, fw))
		drawn++
	}
	if drawn == 0 {
		p.WriteString("<p class=\"note\">No trial in the trace is small enough to draw.</p>\n")
	}
}

func verdictWords(r *Row) string {
	if !isFailing(r) {
		return "correct and live"
	}
	var w []string
	if !r.Correct {
		w = append(w, "not correct")
	}
	if !r.Live {
		w = append(w, "not live")
	}
	if r.Error != "" {
		w = append(w, "error")
	}
	return strings.Join(w, ", ")
}
