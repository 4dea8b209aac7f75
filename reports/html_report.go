package reports

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

	// Descriptions are the scenarios' descriptions by name (the run's
	// manifest), shown beside the outcomes a scenario expects.
	Descriptions map[string]string

	// Faults gives the fault windows of a trial, shaded on the time axes of
	// its group's charts and of its diagram; FaultWindows reads them from
	// the faults column. Nil shades nothing.
	Faults func(r *Row) []FaultWindow

	// Expectations are the run's failed expectations over trials
	// (workloads.CheckRun's, such as a turnaround percentile), as lines
	// naming scenario, algorithm and size; the headline lists them beside
	// the per-trial ones of the expect column.
	Expectations []string

	// Maintenance says which message kinds are maintenance (heartbeats,
	// pings, lease renewals): excerpts and diagrams hide them until the
	// reader shows them. Nil means the failure detector's PING and
	// PING_ACK only.
	Maintenance func(kind string) bool

	// Replay, when set, is the command that replays a trial, shown with
	// each failing trial.
	Replay func(r *Row) string

	// Incident tells an incident scenario (chaos.IsIncident): the report
	// opens with its incident view (html_incident.go). Nil: none is.
	Incident func(scenario string) bool
	// Signatures are the conditions of the incident scenarios' expected
	// signatures, judged per configuration (workloads.Signatures): the
	// incident view sets each beside the figure it bounds.
	Signatures []Signature
	// Leads says which message kinds of an algorithm only its leader
	// sends, with its term in the message's A field (nodes.Quorum's Leader
	// kinds): given a trace, the incident view draws each process as
	// leading while it sends them. Nil draws no time-line.
	Leads func(algorithm, kind string) bool

	// Hunts are the hunts whose output lies in the run's directory (a
	// nightly job's): the counterexamples they found are named at the top,
	// each linked to its fault story. Their Dir is the path from the
	// report to the hunt's directory.
	Hunts []Hunt

	// IDs gives the identities by position of the trial of row r, or nil
	// when they are unknown (a live trial's nodes mint their own): the
	// diagrams label each lane with its position and identity.
	IDs func(r *Row) []string

	// Explore, when set, is the command that writes the step-through
	// explorer page of a traced trial (electbench explore), shown beside
	// its excerpt and its diagram. A command rather than a page written
	// beside the report: an explorer page embeds its trial's every event,
	// megabytes for a long one, and most readers want none of them.
	Explore func(h TraceHeader) string

	// MaxFailing bounds the failing trials listed in detail (0: 200).
	MaxFailing int
	// MaxDiagrams bounds the message-sequence diagrams (0: 8).
	MaxDiagrams int
}

// WriteHTMLFile writes the report of rows to path, replaced atomically.
func WriteHTMLFile(path string, rows Rows, opt HTMLOptions) error {
	return writeFileAtomic(filepath.Dir(path), path, func(out io.Writer) error {
		return WriteHTML(out, rows, opt)
	})
}

// reportGroup is a Group with the figures of its rows and its anchor.
type reportGroup struct {
	Group
	*groupFigures
	values [][]float64 // the summary's samples: per metric (metrics), then failover_t
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
// html_page.go), answering its readers' questions in order: the verdict of
// the run (expectations, safety, liveness, errors) and the key numbers per
// configuration; which algorithm to choose (messages and turnaround
// against N for all, the distributions side by side at the largest N, each
// algorithm's own charts with ALGORITHMS.md's closed forms folded below);
// failover where leaders crashed (CDFs in milliseconds); why a trial broke
// (its seed, violation and, given a trace, the events around it); timers
// and faults; and message-sequence diagrams of small trials from the
// trace. The same rows and trace give the same bytes. The rows are read
// once, and once more with a trace for the rows of the trials it draws.
func WriteHTML(out io.Writer, rows Rows, opt HTMLOptions) error {
	if opt.Title == "" {
		opt.Title = "electbench report"
	}
	if opt.MaxFailing <= 0 {
		opt.MaxFailing = 200
	}
	if opt.MaxDiagrams <= 0 {
		opt.MaxDiagrams = 8
	}
	rr := newReportReader(&opt)
	if err := rows(func(r *Row) error { rr.add(r); return nil }); err != nil {
		return err
	}
	groups, fails := rr.groups(opt.MaxFailing)
	allSeries := groupSeries(groups)

	var diagrams []*TraceTrial
	var leads map[groupKey]*TraceTrial
	var traced map[traceKey]*Row
	if opt.Trace != nil {
		var err error
		if diagrams, leads, err = attachTrace(opt, fails.listed); err != nil {
			return &TraceError{Name: cmpOr(opt.TraceName, "trace"), Err: err}
		}
		if traced, err = tracedRows(rows, diagrams, leads); err != nil {
			return err
		}
	}

	p := newPage(opt.Title)
	writeMeta(p, rr, groups, opt)
	incidents, byIncident := incidentGroups(groups, opt.Incident)
	nav := []run{link("#verdict", "Verdict")}
	if len(incidents) > 0 {
		nav = append(nav, link("#incident", "Incident"))
	}
	nav = append(nav, link("#summary", "Key numbers"), link("#choose", "Choosing an algorithm"))
	if slices.ContainsFunc(groups, func(g *reportGroup) bool { return g.FailoverT.N > 0 }) {
		nav = append(nav, link("#failover", "Failover"))
	}
	if slices.ContainsFunc(groups, func(g *reportGroup) bool { return figure16Name.MatchString(g.Scenario) }) {
		nav = append(nav, link("#figure16", "Raft's Figure 16"))
	}
	if slices.ContainsFunc(groups, libraryCrashed) {
		nav = append(nav, link("#library-failover", "Libraries' failover"))
	}
	if hasMutex(groups) {
		nav = append(nav, link("#mutex", "Mutual exclusion"))
	}
	if ringDrawn(groups) {
		nav = append(nav, link("#ring", "Ring lecture"))
	}
	nav = append(nav, link("#verdicts", "Failing trials"), link("#timeouts", "Timeouts and faults"))
	if opt.Trace != nil {
		nav = append(nav, link("#diagrams", "Message sequences"))
	}
	p.nav(nav...)
	writeHuntFindings(p, opt.Hunts)
	if rr.tally.Rows == 0 {
		p.note("No trials in these results.")
		return p.write(out)
	}
	writeHeadline(p, rr, groups, fails, opt)
	writeIncidents(p, incidents, byIncident, leads, traced, opt)
	writeKeyTable(p, allSeries)
	if err := writeChoose(p, allSeries, opt.Faults); err != nil {
		return err
	}
	if err := writeFailover(p, groups); err != nil {
		return err
	}
	if err := writeFigure16(p, groups); err != nil {
		return err
	}
	if err := writeLibraryFailover(p, groups); err != nil {
		return err
	}
	writeMutex(p, groups)
	if err := writeRingLecture(p, groups); err != nil {
		return err
	}
	writeVerdicts(p, groups, fails, opt)
	if err := writeTimeouts(p, allSeries, opt.Faults); err != nil {
		return err
	}
	writeSummaryTable(p, groups)
	if opt.Trace != nil {
		writeDiagrams(p, diagrams, traced, opt)
	}
	p.h2("method", txt("Method"))
	method := "Statistics over trials without an error whose figure is set. " +
		"Median 95% interval: distribution-free, the order statistics at the binomial(n, ½) ranks (none below 6 trials). " +
		Method + ". Charts: gonum.org/v1/plot, SVG."
	if opt.Generator != "" {
		method += " Written by " + opt.Generator + "."
	}
	p.note(method)
	return p.write(out)
}

// ids is opt.IDs of row r, nil when either is.
func (opt HTMLOptions) ids(r *Row) []string {
	if opt.IDs == nil || r == nil {
		return nil
	}
	return opt.IDs(r)
}

// maint is opt.Maintenance or its default.
func (opt HTMLOptions) maint() func(string) bool {
	if opt.Maintenance != nil {
		return opt.Maintenance
	}
	return func(k string) bool { return k == "PING" || k == "PING_ACK" }
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
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
	return (!r.Correct || !r.Live || r.SafetyViolations > 0 || r.Error != "") && !r.ExpectedOutcome()
}

// attachTrace reads the trace once: the excerpt around each listed failing
// trial's violation, the events of up to MaxDiagrams small trials —
// failing ones first come, then the first trial of each configuration —
// and the leader messages of the first trial of each configuration of an
// incident scenario (leadWant).
func attachTrace(opt HTMLOptions, fails []*failing) ([]*TraceTrial, map[groupKey]*TraceTrial, error) {
	byKey := map[traceKey]*failing{}
	for _, f := range fails {
		byKey[rowTraceKey(f.row)] = f
	}
	seenConfig := map[string]bool{}
	drawn := map[traceKey]bool{}
	leads := map[groupKey]*TraceTrial{}
	leadTrial := map[traceKey]groupKey{}
	trials, err := readTrace(opt.Trace, func(h TraceHeader) (traceWant, bool) {
		w := traceWant{around: -1, maint: opt.maint(), lead: leadWant(opt, h, leads, leadTrial)}
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
		return w, w.max > 0 || w.around >= 0 || w.lead != nil
	})
	if err != nil {
		return nil, nil, err
	}
	var out []*TraceTrial
	for _, t := range trials {
		if f := byKey[t.key()]; f != nil && f.trace == nil {
			f.trace = t
		}
		if drawn[t.key()] {
			out = append(out, t)
		}
		if k, ok := leadTrial[t.key()]; ok {
			leads[k] = t
		}
	}
	return out, leads, nil
}

// leadWant selects, for the first trial of each configuration of an
// incident scenario, its leader messages and crashes (the leadership
// time-line), noting the trial in leadTrial; nil for other trials.
func leadWant(opt HTMLOptions, h TraceHeader, leads map[groupKey]*TraceTrial, leadTrial map[traceKey]groupKey) func(*TraceEvent) bool {
	if opt.Incident == nil || opt.Leads == nil || !opt.Incident(h.Scenario) {
		return nil
	}
	k := groupKey{h.Algorithm, h.Variant, cmpOr(h.Runtime, "sim"), h.Scenario, h.Nodes}
	if _, ok := leads[k]; ok {
		return nil
	}
	leads[k] = nil // the first trial is taken
	leadTrial[h.key()] = k
	return func(ev *TraceEvent) bool {
		return ev.Ev == "crash" || ev.Ev == "send" && opt.Leads(h.Algorithm, ev.Kind)
	}
}

func writeMeta(p *page, rr *reportReader, groups []*reportGroup, opt HTMLOptions) {
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
	var meta []run
	if opt.Source != "" {
		meta = append(meta, txt("Results: "), code(opt.Source), txt(" · "))
	}
	meta = append(meta, txtf("%d trials in %d groups · algorithms: %s · runtime: %s · scenario: %s",
		rr.tally.Rows, len(groups), strings.Join(algs, ", "), strings.Join(runtimes, ", "), strings.Join(scenarios, ", ")))
	if n := rr.tally.BudgetHits; n > 0 {
		meta = append(meta, txt(" · "), boldf("%d stopped by a budget", n), txt(" (--max-events, --max-inflight: not live; the error column says where)"))
	}
	if opt.Trace != nil {
		meta = append(meta, txt(" · trace: "), code(cmpOr(opt.TraceName, "given")))
	}
	p.para("meta", meta...)
	if dep := networkDeparture(rr); dep != "" {
		p.para("meta", txt(dep))
	}
}

// networkDeparture says how far the live network departed from its model
// (issue 17): per configured T, the median over live trials of the
// measured mean and p99 one-way delay of the election messages, against
// T. Empty without live rows that measured any.
func networkDeparture(rr *reportReader) string {
	by, ts := rr.delays.by, rr.delays.ts
	if len(ts) == 0 {
		return ""
	}
	slices.Sort(ts)
	var parts []string
	for _, t := range ts {
		a := by[t]
		m, p99 := median(a.means), median(a.p99s)
		parts = append(parts, fmt.Sprintf("configured T %s ms: measured mean %s ms (%+.1f%%), p99 %s ms (%+.1f%%) over %d trials",
			summaryNumber(1000*t), summaryNumber(1000*m), 100*(m-t)/t, summaryNumber(1000*p99), 100*(p99-t)/t, len(a.means)))
	}
	out := "Live network against its model (median over trials of each trial's one-way delays of election messages, measured on the host's one monotonic clock; turnaround_tm is in the measured mean): " +
		strings.Join(parts, "; ") + "."
	if n, attempts, kept := rr.tally.Reruns, rr.tally.RerunAttempts, rr.tally.RerunsKept; n > 0 {
		out += fmt.Sprintf(" %d trials ran again (%d attempts not kept): the host delayed a message of a bounded-delay algorithm (bully, multicast) past its bound D, outside the algorithm's model (reruns column)", n, attempts)
		if kept > 0 {
			out += fmt.Sprintf("; %d kept after their last attempt overran too, so their verdicts measure the host as much as the algorithm and their expectations were not judged", kept)
		}
		out += "."
	}
	return out
}

func optInt(o Opt[int64]) cell {
	if !o.IsSet() {
		return cell{text: "-", num: true}
	}
	return cell{text: strconv.FormatInt(o.Get(), 10), num: true, v: float64(o.Get()), hasV: true}
}

func ciText(s Stat) cell {
	if !s.MedianLow.IsSet() {
		return cell{text: "-", num: true, title: "fewer than 6 trials"}
	}
	return cell{text: "[" + fixedText(s.MedianLow.Get(), 2) + ", " + fixedText(s.MedianHigh.Get(), 2) + "]",
		num: true, v: s.MedianLow.Get(), hasV: true}
}

func writeSummaryTable(p *page, groups []*reportGroup) {
	head := []string{"algorithm", "variant", "runtime", "scenario", "nodes", "trials", "errors", "correct %", "live %",
		"safety violations", "unsafe trials", "messages median", "messages median 95% CI", "messages mean", "theory_messages",
		"theory_bound", "turnaround_t median", "decided_t median", "failover_t median", "timeouts mean"}
	heads := disruptionHeads(groups)
	head = append(head, headNames(heads)...)
	var rows [][]cell
	for _, g := range groups {
		to := describe(g.timeouts)
		rows = append(rows, append([]cell{
			linkCell("#"+g.anchor, g.Algorithm), textCell(g.Variant),
			textCell(g.Runtime), textCell(g.Scenario), intCell(g.Nodes), intCell(g.Trials), intCell(g.Errors),
			floatCell(100*g.CorrectShare, 1), floatCell(100*g.LiveShare, 1), intCell(g.SafetyViolations),
			intCell(g.UnsafeTrials), optCell(g.Messages.Median, 1), ciText(g.Messages), optCell(g.Messages.Mean, 1),
			optInt(g.TheoryMessages), optInt(g.theoryBound),
			optCell(g.TurnaroundT.Median, 2), optCell(g.DecidedT.Median, 2), optCell(g.FailoverT.Median, 2), optCell(to.Mean, 2),
		}, disruptionCells(g, heads)...))
	}
	p.details("all-figures", false, []run{txt("Every figure per configuration (the summary)")}, func() {
		p.note("One line per algorithm, variant, runtime, scenario and size. Click a heading to sort.")
		p.tableID("summary-table", "sortable", head, rows)
	})
}

func writeMessageCharts(p *page, all []*series) error {
	p.h3("messages", txt("Messages against N"))
	p.note("Median messages per size on log scales; bars span the smallest and largest trial. " +
		"Dashed lines: ALGORITHMS.md's closed forms, drawn only where the rows' configuration is the one they describe; rings: the theory_messages and theory_bound the rows report.")
	var singles, figures []string
	for _, s := range all {
		var pts []messagePoint
		for _, g := range s.groups {
			if !g.Messages.Median.IsSet() {
				continue
			}
			pts = append(pts, messagePoint{n: g.Nodes, median: g.Messages.Median.Get(), min: g.Messages.Min.Get(),
				max: g.Messages.Max.Get(), theory: g.TheoryMessages, bound: g.theoryBound})
		}
		if len(pts) < 2 {
			for _, pt := range pts {
				singles = append(singles, fmt.Sprintf("%s at N = %d: median %s messages (min %s, max %s)",
					s.label, pt.n, fixedText(pt.median, 1), fixedText(pt.min, 0), fixedText(pt.max, 0)))
			}
			continue
		}
		svg, err := messagesChart(s.algorithm, pts)
		if err != nil {
			return err
		}
		if s.label != s.algorithm {
			svg = strings.Replace(svg, ">"+esc(s.algorithm)+": messages vs N<", ">"+esc(s.label)+": messages vs N<", 1)
		}
		figures = append(figures, svg)
	}
	p.figures(figures)
	writeSingles(p, singles)
	return nil
}

// writeSingles lists the figures of series with one size: a chart of one
// point says less than the number.
func writeSingles(p *page, singles []string) {
	var items [][]run
	for _, x := range singles {
		items = append(items, []run{txt(x)})
	}
	p.list("singles", items)
}

// seriesFaults is the union of the fault windows of a series' rows, in
// order of first appearance.
func seriesFaults(s *series, faults func(*Row) []FaultWindow) []FaultWindow {
	if faults == nil {
		return nil
	}
	var out []FaultWindow
	for _, g := range s.groups {
		for _, f := range g.faults {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

func writeTimeCharts(p *page, all []*series, faults func(*Row) []FaultWindow) error {
	p.h3("times", txt("Turnaround and decided"))
	p.note("Distribution per size, in units of the mean latency T: box from the first to the third quartile, line at the median, whiskers to 1.5 IQR, outliers as points. Shaded bands: fault windows.")
	var singles, figures []string
	for _, s := range all {
		fw := seriesFaults(s, faults)
		for _, m := range []struct {
			name   string
			metric int // in metrics
		}{{"turnaround_t", metricTurnaroundT}, {"decided_t", metricDecidedT}} {
			var samples []boxSample
			values := 0
			for _, g := range s.groups {
				vs := g.values[m.metric]
				values += len(vs)
				samples = append(samples, boxSample{n: g.Nodes, values: vs})
			}
			if values < 2 {
				for _, b := range samples {
					for _, v := range b.values {
						singles = append(singles, fmt.Sprintf("%s at N = %d: %s %s T", s.label, b.n, m.name, fixedText(v, 2)))
					}
				}
				continue
			}
			svg, err := boxChart(s.label+": "+m.name, m.name+" (T)", samples, true, fw)
			if err != nil {
				return err
			}
			figures = append(figures, svg)
		}
	}
	p.figures(figures)
	writeSingles(p, singles)
	return nil
}

// writeTimeouts answers "what fired, and what was broken when?": per
// series, the timers and suspicions of a trial at its largest size by
// kind; the distributions per size folded below (series with one value
// say it); then each faulty series' fault schedule on a time axis, from
// its first trial, beside its turnaround.
func writeTimeouts(p *page, all []*series, faults func(*Row) []FaultWindow) error {
	p.h2("timeouts", txt("Timeouts and faults"))
	if err := writeTimeoutTables(p, all); err != nil {
		return err
	}
	if faults != nil {
		writeFaultSchedules(p, all, faults)
	}
	return nil
}

// writeTimeoutTables writes the timeouts of every series that had any: at
// its largest size by kind, and per size folded below.
func writeTimeoutTables(p *page, all []*series) error {
	var rows, detail [][]cell
	var fired []*series
	for _, s := range all {
		any := false
		for _, g := range s.groups {
			kinds, total := g.timeoutKinds, g.timeoutTotal
			if total == 0 {
				continue
			}
			any = true
			to := describe(g.timeouts)
			detail = append(detail, []cell{textCell(s.label), intCell(g.Nodes), intCell(g.Trials),
				optCell(to.Median, 1), optCell(to.Mean, 2), optCell(to.Max, 0),
				textCell(CountsFromMap(kinds).String())})
		}
		if !any {
			continue
		}
		fired = append(fired, s)
		top := s.groups[len(s.groups)-1]
		kinds := top.timeoutKinds
		var per []string
		for _, kc := range CountsFromMap(kinds) {
			per = append(per, kc.Kind+" "+fixedText(float64(kc.N)/float64(max(top.Trials, 1)), 1))
		}
		to := describe(top.timeouts)
		rows = append(rows, []cell{textCell(s.label), intCell(top.Nodes), optCell(to.Median, 1), textCell(strings.Join(per, ", "))})
	}
	if len(fired) == 0 {
		p.note("No timer fired and no process was suspected in any trial.")
		return nil
	}
	p.note("Timer expirations and detector suspicions per trial, at each series' largest size: the median, and the mean per trial of each kind.")
	p.table("sortable", []string{"series", "at N", "timeouts median", "per trial, by kind (mean)"}, rows)
	singles, figures, err := timeoutCharts(fired)
	if err != nil {
		return err
	}
	p.details("timeouts-detail", false, []run{txt("Timeouts per size, for every series")}, func() {
		p.figures(figures)
		writeSingles(p, singles)
		p.table("sortable", []string{"series", "nodes", "trials", "median", "mean", "max", "by kind (total)"}, detail)
	})
	return nil
}

// timeoutCharts draws a box chart of timeouts per size for each series
// that fired; a series with one value says it in a sentence instead.
func timeoutCharts(fired []*series) (singles, figures []string, err error) {
	for _, s := range fired {
		var samples []boxSample
		values := 0
		for _, g := range s.groups {
			xs := g.timeouts
			values += len(xs)
			samples = append(samples, boxSample{n: g.Nodes, values: xs})
		}
		if values < 2 {
			for _, b := range samples {
				for _, v := range b.values {
					singles = append(singles, fmt.Sprintf("%s at N = %d: %s timeouts", s.label, b.n, fixedText(v, 0)))
				}
			}
			continue
		}
		svg, err := boxChart(s.label+": timeouts", "timeouts per trial", samples, false, nil)
		if err != nil {
			return nil, nil, err
		}
		figures = append(figures, svg)
	}
	return singles, figures, nil
}

// writeFaultSchedules draws each faulty series' fault schedule, from its
// first trial with a fault, beside its turnaround.
func writeFaultSchedules(p *page, all []*series, faults func(*Row) []FaultWindow) {
	p.h3("faults", txt("Fault schedules"))
	drawn := 0
	for _, s := range all {
		var first *Row
		for _, g := range s.groups {
			if first = g.firstFaulty; first != nil {
				break
			}
		}
		if first == nil {
			continue
		}
		end := 0.0
		if first.TurnaroundT.IsSet() {
			end = first.TurnaroundT.Get()
		}
		p.details("", drawn == 0, []run{txtf("%s — N = %d, trial %d (seed %d): ", s.label, first.Nodes, first.Trial, first.Seed),
			code(shorten(ForReader(first.Faults, nil), 160))}, func() { p.svg(faultTimeline(faults(first), end)) })
		drawn++
	}
	if drawn == 0 {
		p.note("No trial applied a fault.")
	}
}

func writeVerdicts(p *page, groups []*reportGroup, fails failures, opt HTMLOptions) {
	p.h2("verdicts", txt("Failing trials"))
	p.note("Correct: every non-faulty process decided the same leader, the non-faulty process of highest rank. Live: the election terminated. Each failing trial is listed with its seed, its violation and, given a trace, the events that led to it.")
	if fails.total == 0 {
		p.para("good", txt("No trial failed: every one was correct and live, with no safety violation and no error."))
	}
	var rows []tableRow
	for _, g := range groups {
		correct := int(math.Round(g.CorrectShare * float64(g.Trials)))
		live := int(math.Round(g.LiveShare * float64(g.Trials)))
		class := ""
		links := cell{text: "0", num: true, v: 0, hasV: true}
		if n := g.failing; n > 0 {
			class = "bad"
			links = cell{text: strconv.Itoa(n), href: "#" + g.firstFailAnchor(), num: true, v: float64(n), hasV: true}
		}
		correctCell, liveCell := verdictCell(correct, g.Trials), verdictCell(live, g.Trials)
		if exp := g.expected; exp > 0 && live+exp == g.Trials {
			// Every trial that is not live is so as the scenario expects.
			title := fmt.Sprintf("%d not live, as the scenario expects (liveness: never or at-least P%%)", exp)
			liveCell.classes, liveCell.title = "note", title
			if correct+exp == g.Trials {
				correctCell.classes, correctCell.title = "note", title
			}
		}
		rows = append(rows, tableRow{id: g.anchor, class: class, cells: []cell{
			textCell(g.Algorithm), textCell(g.Variant), textCell(g.Runtime), textCell(g.Scenario),
			intCell(g.Nodes), intCell(g.Trials), correctCell, liveCell,
			badCount(g.SafetyViolations), badCount(g.Errors), links,
		}})
	}
	p.details("group-verdicts", false, []run{txt("Verdicts per configuration")}, func() {
		p.tableRows("", "sortable", []string{"algorithm", "variant", "runtime", "scenario", "nodes", "trials", "correct", "live",
			"safety violations", "errors", "failing trials"}, rows)
	})
	if fails.total == 0 {
		return
	}
	p.h3("", txtf("%d failing trial%s", fails.total, plural(fails.total)))
	const open = 3 // the first failing trials are shown; the others fold
	for i, f := range fails.listed {
		if i < open {
			writeFailing(p, f, opt)
			continue
		}
		p.details("", false, []run{txt(failingTitle(f.row))}, func() { writeFailing(p, f, opt) })
	}
	if n := len(fails.listed); n < fails.total {
		p.note(fmt.Sprintf("… and %d more failing trials, not listed: see the results file.", fails.total-n))
	}
}

// failingTitle names a failing trial: configuration, trial, seed.
func failingTitle(r *Row) string {
	return fmt.Sprintf("%s/%s %s %s n=%d — trial %d, seed %d", r.Algorithm, r.Variant, r.Runtime, r.Scenario, r.Nodes, r.Trial, r.Seed)
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
	p.box(f.anchor, "trial", func() {
		p.h3("", txt(failingTitle(r)))
		p.para("", span("bad", strings.Join(what, ", ")),
			txtf(" · arrangement %s · initiators %s · latency %s · leader %s · %s · ", r.Arrangement, r.Initiators, r.Latency,
				cmpOr(r.Leader, "none agreed"), messagesText(r)), link("#"+f.group.anchor, "group"))
		if r.Violation != "" {
			p.para("", txt("Violation: "), code(ForReader(r.Violation, opt.ids(r))))
		}
		if r.Error != "" {
			p.para("", txt("Error: "), code(ForPeople(r.Error)))
		}
		if opt.Faults != nil {
			for _, fw := range opt.Faults(r) {
				p.para("", txt("Fault: "+ForReader(faultTitle(fw), opt.ids(r))))
			}
		}
		if opt.Replay != nil {
			if cmd := opt.Replay(r); cmd != "" {
				p.para("replay", txt("Replay: "), code(cmd))
			}
		}
		switch {
		case f.trace != nil && len(f.trace.Excerpt) > 0:
			writeExcerpt(p, f, opt)
		case opt.Trace != nil:
			p.note("The trace file has no events for this trial.")
		}
	})
}

// violatorAt names the process a violation blames ("... process 3 ..."),
// or -1.
var violatorAt = regexp.MustCompile(`\bprocess (\d+)\b`)

// writeExcerpt writes the events that led to a failing trial's violation:
// maintenance messages folded (shown on demand), the violating event
// marked, then the message-sequence diagram of the same window.
func writeExcerpt(p *page, f *failing, opt HTMLOptions) {
	r, ex := f.row, f.trace.Excerpt
	tNs := r.TS * 1e9
	maint := opt.maint()
	at, hasAt := violationTime(r.Violation)
	what := "the trial's last events"
	if hasAt {
		what = "the events that led to the violation at " + formatTraceTime(at, tNs)[2:]
	}
	culprit := -1
	if m := violatorAt.FindStringSubmatch(r.Violation); m != nil {
		culprit, _ = strconv.Atoi(m[1])
	}
	hidden := map[string]int{}
	for i := range ex {
		if isMaint(&ex[i], maint) {
			hidden[ex[i].Kind]++
		}
	}
	intro := []run{txtf("Trace, %s (%d events in the trial)", what, f.trace.Total)}
	if len(hidden) > 0 {
		var parts []string
		for k, n := range hidden {
			parts = append(parts, k+" "+strconv.Itoa(n))
		}
		slices.Sort(parts)
		intro = append(intro, txt("; maintenance messages folded: "+strings.Join(parts, ", ")+" ("), checkbox("show-maint", "show"), txt(")"))
	}
	p.para("", append(intro, txt(":"))...)
	var lines []preLine
	marked := false
	for i, ev := range ex {
		line := describeEvent(ev, tNs)
		switch {
		case isMaint(&ex[i], maint):
			lines = append(lines, preLine{Text: line, Class: "maint"})
			continue
		case hasAt && ev.T == at && ev.Ev == "decide" && (culprit < 0 || ev.P == culprit):
			lines = append(lines, preLine{Text: line + "   ◀ the violation", Class: "bad violating", Bold: true})
			marked = true
		default:
			lines = append(lines, preLine{Text: line})
		}
		next := i+1 < len(ex)
		if hasAt && !marked && ev.T <= at && (!next || ex[i+1].T > at) {
			lines = append(lines, preLine{Text: "── " + ForReader(r.Violation, opt.ids(r)), Class: "bad", Bold: true})
			marked = true
		}
	}
	p.pre("excerpt", lines)
	var fw []FaultWindow
	if opt.Faults != nil {
		fw = opt.Faults(r)
	}
	window := &TraceTrial{TraceHeader: f.trace.TraceHeader, Events: ex, Window: true}
	p.details("", true, []run{txt("Message sequence of these events")}, func() {
		p.svg(lamportDiagram(diagramID(f.trace)+"-x", window, tNs, fw, maint, opt.ids(r)))
	})
	if len(f.trace.Events) > 0 && !f.trace.Truncated {
		p.para("", link("#"+diagramID(f.trace), "The whole trial's message-sequence diagram"))
	}
	exploreLine(p, f.trace, opt)
}

// exploreLine writes the command that steps through a traced trial, when
// the report knows it.
func exploreLine(p *page, t *TraceTrial, opt HTMLOptions) {
	if opt.Explore != nil {
		if cmd := opt.Explore(t.TraceHeader); cmd != "" {
			p.para("explore", txt("Step through it, event by event: "), code(cmd))
		}
	}
}

func diagramID(t *TraceTrial) string {
	id := fmt.Sprintf("seq-%s-%d-%d-%d", strings.ReplaceAll(t.Algorithm, " ", "_"), t.Nodes, t.Trial, t.Seed)
	if t.Runtime != "" {
		id += "-" + t.Runtime // the same trial may be drawn simulated and live
	}
	return id
}

func writeDiagrams(p *page, trials []*TraceTrial, byKey map[traceKey]*Row, opt HTMLOptions) {
	p.h2("diagrams", txt("Message sequences"))
	p.note(fmt.Sprintf("Trials of at most %d nodes and %d events from the trace: one lane per process (ring or rank position), time downwards, an arrow per message from its send to its delivery. Triangles: initiations; dots: decisions; squares: timers. Heartbeats and pings are hidden until shown. Hover for details.",
		DiagramMaxNodes, DiagramMaxEvents))
	drawn := 0
	for _, t := range trials {
		if len(t.Events) == 0 {
			continue
		}
		r := byKey[t.key()]
		id := diagramID(t)
		title := fmt.Sprintf("%s/%s n=%d — trial %d, seed %d", t.Algorithm, t.Variant, t.Nodes, t.Trial, t.Seed)
		if t.Runtime != "" {
			title += " (" + t.Runtime + ")"
		}
		body := func() {
			if t.Truncated {
				p.note(fmt.Sprintf("%d events: too many for a diagram (at most %d).", t.Total, DiagramMaxEvents))
				exploreLine(p, t, opt)
				return
			}
			var tNs float64
			var fw []FaultWindow
			if r != nil {
				tNs = r.TS * 1e9
				if opt.Faults != nil {
					fw = opt.Faults(r)
				}
				p.para("meta", txtf("%s, leader %s, %s", messagesText(r), cmpOr(r.Leader, "none"), verdictWords(r)))
			}
			p.svg(lamportDiagram(id, t, tNs, fw, opt.maint(), opt.ids(r)))
			if late := lateFaults(t.Events, tNs); len(late) > 0 {
				p.note("The diagram ends at the last message or decision; faults after it, with nothing to draw: " + strings.Join(late, ", ") + ".")
			}
			exploreLine(p, t, opt)
		}
		// The first diagram is open; the others fold, one line each.
		if drawn == 0 {
			p.h3(id, txt(title))
			body()
		} else {
			p.details(id, false, []run{txt(title)}, body)
		}
		if !t.Truncated {
			drawn++
		}
	}
	if drawn == 0 {
		p.note("No trial in the trace is small enough to draw.")
	}
	if drawn > 0 {
		p.para("", checkbox("show-maint", "show heartbeats and pings in the diagrams"))
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

// messagesText is a trial's message count in words, or that its messages
// were not visible (a server run from outside).
func messagesText(r *Row) string {
	if r.Unseen {
		return "messages not visible"
	}
	return fmt.Sprintf("%d messages", r.Messages)
}
