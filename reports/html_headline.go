package reports

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The report opens with what its reader came for: the verdict of the run
// (writeHeadline), then the key numbers per configuration (writeKeyTable).
// Charts, failover, failing trials and diagrams follow.

// algoVerdict is the verdict of one algorithm (and variant) on one runtime
// over all its sizes and scenarios.
type algoVerdict struct {
	label                         string
	trials, unsafe, notLive, errs int
	wrong                         int // live, safe, and still not correct
	violations                    int
	host                          int    // unsafe with overruns: the host delayed a message past the bound
	firstFail                     string // the anchor of its first failing trial
}

// writeHeadline writes the verdict of the run: the expectations that
// failed (per trial from the expect column, over trials from
// HTMLOptions.Expectations), the safety violations and liveness losses by
// algorithm, the errors; one line when all is well.
func writeHeadline(p *page, rr *reportReader, groups []*reportGroup, fails failures, opt HTMLOptions) {
	order, by := algoVerdicts(groups)
	ex := rr.expect
	bad := len(ex.order) > 0 || len(opt.Expectations) > 0 || fails.total > 0
	expected := rr.outcome
	n := rr.tally.Rows
	p.section("verdict", func() {
		p.h2("", txt("Verdict"))
		if !bad {
			msg := fmt.Sprintf("All %d trials were correct and live, with no safety violation and no error.", n)
			if expected.n > 0 {
				msg = fmt.Sprintf("All %d trials were as their scenarios expect: %d correct and live, %d not live as expected, with no safety violation and no error.",
					n, n-expected.n, expected.n)
			}
			if ex.checked > 0 {
				msg += fmt.Sprintf(" Every expectation held (%d trials checked).", ex.checked)
			}
			p.para("verdict ok", txt(msg))
		} else {
			p.box("", "verdict fail", func() {
				if n := len(ex.order) + len(opt.Expectations); n > 0 {
					writeFailedExpectations(p, ex, opt.Expectations)
				}
				writeAlgoVerdicts(p, order, by)
			})
		}
		writeExpectedOutcomes(p, expected, opt.Descriptions)
	})
}

// outcomes counts, per scenario in order of first appearance, the trials
// not live as their scenario expects (Row.ExpectedOutcome).
type outcomes struct {
	n      int
	order  []string
	by     map[string]int
	trials map[string]int // every trial of the scenario
}

func (o *outcomes) add(r *Row) {
	o.trials[r.Scenario]++
	if !r.ExpectedOutcome() {
		return
	}
	if o.by[r.Scenario] == 0 {
		o.order = append(o.order, r.Scenario)
	}
	o.by[r.Scenario]++
	o.n++
}

// writeExpectedOutcomes shows, in grey, the outcomes the scenarios expect
// (no leader where the faults leave no majority), each scenario with its
// description: they are what should happen, not failures.
func writeExpectedOutcomes(p *page, o outcomes, descriptions map[string]string) {
	if o.n == 0 {
		return
	}
	p.box("", "verdict expected", func() {
		p.para("", boldf("%d trial%s not live, as expected", o.n, plural(o.n)), txt(" (their scenario's liveness: never, or at-least P% of the trials):"))
		var items [][]run
		for _, sc := range o.order {
			item := []run{bold(sc), txtf(": %d of %d trials", o.by[sc], o.trials[sc])}
			if d := descriptions[sc]; d != "" {
				item = append(item, txt(" — "+d))
			}
			items = append(items, item)
		}
		p.list("", items)
	})
}

// algoVerdicts sums the trials of each algorithm and runtime, labels in
// the groups' order, each with its first failing trial.
func algoVerdicts(groups []*reportGroup) (order []string, by map[string]*algoVerdict) {
	by = map[string]*algoVerdict{}
	for _, g := range groups {
		label := algoLabel(g.Algorithm, g.Variant) + " (" + g.Runtime + ")"
		v := by[label]
		if v == nil {
			v = &algoVerdict{label: label}
			by[label] = v
			order = append(order, label)
		}
		v.trials += g.Trials
		v.host += g.host
		v.unsafe += g.unsafe
		v.violations += g.violations
		v.errs += g.errs
		v.notLive += g.notLive
		v.wrong += g.wrong
		if v.firstFail == "" {
			v.firstFail = g.firstFailAnchor()
		}
	}
	return order, by
}

// expectations are the per-trial expectations of a run (the expect
// column): how many trials were checked, and the failures, one key per
// scenario, algorithm, size and expectation ("safety always"), in order of
// first failure, each with its count and the first trial's details.
type expectations struct {
	checked int
	order   []string
	fails   map[string]int
	first   map[string]string
}

func (ex *expectations) add(r *Row) {
	if r.Expect == "" || r.Unjudged() {
		return
	}
	ex.checked++
	if what, ok := strings.CutPrefix(r.Expect, "fail: "); ok {
		name, _, _ := strings.Cut(what, ":")
		key := r.Scenario + ": " + algoLabel(r.Algorithm, r.Variant) + " N=" + strconv.Itoa(r.Nodes) + ": " + name
		if ex.fails[key] == 0 {
			ex.order = append(ex.order, key)
			ex.first[key] = fmt.Sprintf("trial %d (seed %d): %s", r.Trial, r.Seed, what)
		}
		ex.fails[key]++
	}
}

// writeFailedExpectations lists the expectations over trials (overall),
// then the per-trial ones, at most a dozen lines.
func writeFailedExpectations(p *page, ex expectations, overall []string) {
	n := len(ex.order) + len(overall)
	p.para("", boldf("%d expectation%s failed", n, plural(n)), txt(" (per scenario, algorithm and size):"))
	const most = 12
	var items [][]run
	for _, e := range overall {
		items = append(items, []run{txt(e)})
	}
	for _, k := range ex.order {
		items = append(items, []run{txtf("%s — failed in %d trial%s; first, %s", k, ex.fails[k], plural(ex.fails[k]), ex.first[k])})
	}
	if len(items) > most {
		items = append(items[:most], []run{txtf("… and %d more", len(items)-most)})
	}
	p.list("", items)
}

// writeAlgoVerdicts lists what went wrong per algorithm and runtime, with
// a link to its first failing trial, and counts the pairs that were clean.
func writeAlgoVerdicts(p *page, order []string, by map[string]*algoVerdict) {
	var items [][]run
	clean := 0
	for _, label := range order {
		v := by[label]
		var what []string
		if v.unsafe > 0 {
			what = append(what, fmt.Sprintf("%d of %d trials broke safety (%d violations)", v.unsafe, v.trials, v.violations))
		}
		if v.host > 0 {
			what = append(what, fmt.Sprintf("%d of %d trials unsafe outside the algorithm's model: the host delayed a message past its bound (overruns)", v.host, v.trials))
		}
		if v.notLive > 0 {
			what = append(what, fmt.Sprintf("%d of %d trials elected nobody all agreed on (not live)", v.notLive, v.trials))
		}
		if v.wrong > 0 {
			what = append(what, fmt.Sprintf("%d of %d trials live but not correct (a live process decided no leader, or another)", v.wrong, v.trials))
		}
		if v.errs > 0 {
			what = append(what, fmt.Sprintf("%d of %d trials ended in an error", v.errs, v.trials))
		}
		if len(what) == 0 {
			clean++
			continue
		}
		item := []run{bold(label), txt(": " + strings.Join(what, "; "))}
		if v.firstFail != "" {
			item = append(item, txt(" — "), link("#"+v.firstFail, "first failing trial"))
		}
		items = append(items, item)
	}
	p.list("", items)
	if clean > 0 {
		p.para("good", txtf("%d of %d algorithm/runtime pairs: every trial correct and live", clean, len(order)))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func algoLabel(algorithm, variant string) string {
	if variant == "" || variant == "default" {
		return algorithm
	}
	return algorithm + "/" + variant
}

// medianCell is a median with its 95% interval, "-" when unset.
func medianCell(s Stat, decimals int) cell {
	if !s.Median.IsSet() {
		return cell{text: "-", num: true}
	}
	text := fixedText(s.Median.Get(), decimals)
	title := fmt.Sprintf("%d trials", s.N)
	if s.MedianLow.IsSet() {
		text += " [" + fixedText(s.MedianLow.Get(), decimals) + ", " + fixedText(s.MedianHigh.Get(), decimals) + "]"
	} else {
		title += "; fewer than 6: no 95% interval"
	}
	return cell{text: text, num: true, v: s.Median.Get(), hasV: true, title: title}
}

// writeKeyTable writes the key numbers: one row per series (algorithm,
// variant, runtime and scenario) with its verdict counts over all sizes and
// its medians [95% interval] at the largest size it ran; then the medians
// of messages and turnaround at every size, one column per N. The table of
// every figure per configuration comes last in the page, folded.
func writeKeyTable(p *page, all []*series) {
	failover := slices.ContainsFunc(all, func(s *series) bool {
		return slices.ContainsFunc(s.groups, func(g *reportGroup) bool { return g.FailoverT.N > 0 })
	})
	p.section("summary", func() { writeKeyTables(p, all, failover) })
}

func writeKeyTables(p *page, all []*series, failover bool) {
	p.h2("", txt("Key numbers"))
	p.note("One line per algorithm, runtime and scenario: " +
		"its trials over every size, then its figures at the largest size it ran as median [95% interval of the median]. " +
		"Messages are election messages per trial; times are in units of T, the mean one-way latency. Click a heading to sort.")
	head := []string{"algorithm", "runtime", "scenario", "sizes", "trials", "unsafe trials", "live %", "errors",
		"at N", "messages", "turnaround (T)", "decided (T)"}
	var heads []disruptionColumn // at the largest sizes, beside failover
	if failover {
		head = append(head, "failover (T)")
		tops := make([]*reportGroup, len(all))
		for i, s := range all {
			tops[i] = s.groups[len(s.groups)-1]
		}
		heads = disruptionHeads(tops)
		head = append(head, headNames(heads)...)
	}
	if len(heads) > 0 {
		p.note("Beside failover: the disruption figures of the trials that have them, as median [min, max].")
	}
	var rows [][]cell
	sizes := map[int]bool{}
	for _, s := range all {
		trials, unsafe, errs, live := 0, 0, 0, 0.0
		var ns []string
		for _, g := range s.groups {
			trials += g.Trials
			unsafe += g.UnsafeTrials
			errs += g.Errors
			live += g.LiveShare * float64(g.Trials)
			ns = append(ns, strconv.Itoa(g.Nodes))
			sizes[g.Nodes] = true
		}
		top := s.groups[len(s.groups)-1]
		first := s.groups[0]
		row := []cell{
			linkCell("#"+first.anchor, algoLabel(first.Algorithm, first.Variant)),
			textCell(first.Runtime), textCell(first.Scenario), textCell(compactList(ns)), intCell(trials),
			badCount(unsafe), percentCell(live / float64(max(trials, 1))), badCount(errs),
			intCell(top.Nodes), medianCell(top.Messages, 1), medianCell(top.TurnaroundT, 2), medianCell(top.DecidedT, 2),
		}
		if failover {
			row = append(append(row, medianCell(top.FailoverT, 2)), disruptionCells(top, heads)...)
		}
		rows = append(rows, row)
	}
	p.tableID("key-table", "sortable", head, rows)
	if len(sizes) > 1 && len(sizes) <= 12 {
		var ns []int
		for n := range sizes {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		for _, m := range []struct {
			id, title string
			stat      func(g *reportGroup) Stat
			decimals  int
		}{
			{"messages-by-n", "Median messages by N", func(g *reportGroup) Stat { return g.Messages }, 1},
			{"turnaround-by-n", "Median turnaround (T) by N", func(g *reportGroup) Stat { return g.TurnaroundT }, 2},
		} {
			head := []string{"series"}
			for _, n := range ns {
				head = append(head, "N="+strconv.Itoa(n))
			}
			var rows [][]cell
			for _, s := range all {
				row := []cell{textCell(s.label)}
				for _, n := range ns {
					c := cell{text: "", num: true}
					for _, g := range s.groups {
						if g.Nodes == n {
							c = medianCell(m.stat(g), m.decimals)
							if c.hasV {
								c.text = fixedText(c.v, m.decimals) // the interval is in the title
								if st := m.stat(g); st.MedianLow.IsSet() {
									c.title += "; 95% interval [" + fixedText(st.MedianLow.Get(), m.decimals) + ", " + fixedText(st.MedianHigh.Get(), m.decimals) + "]"
								}
							}
						}
					}
					row = append(row, c)
				}
				rows = append(rows, row)
			}
			p.h3("", txt(m.title))
			p.tableID(m.id, "sortable", head, rows)
		}
	}
}

// compactList writes sizes as "4…256 (7)" when there are many.
func compactList(ns []string) string {
	if len(ns) <= 4 {
		return strings.Join(ns, ", ")
	}
	return ns[0] + "…" + ns[len(ns)-1] + " (" + strconv.Itoa(len(ns)) + ")"
}

// percentCell is a share as a percentage, marked bad below 100.
func percentCell(share float64) cell {
	c := floatCell(100*share, 1)
	if share < 1 {
		c.classes = "bad"
	}
	return c
}
