package reports

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
)

// writeChoose answers "which algorithm at my size and network?": median
// messages and turnaround against N for every series on one chart each,
// the distributions side by side at the largest size run, and the
// per-series charts folded below.
func writeChoose(p *page, all []*series, faults func(*Row) []FaultWindow) error {
	labels := make([]string, len(all))
	var msgs, turn []overviewSeries
	for i, s := range all {
		labels[i] = s.label
		m, t := overviewSeries{label: s.label}, overviewSeries{label: s.label}
		for _, g := range s.groups {
			if g.Messages.Median.IsSet() {
				m.pts = append(m.pts, plotter.XY{X: float64(g.Nodes), Y: g.Messages.Median.Get()})
			}
			if g.TurnaroundT.Median.IsSet() {
				t.pts = append(t.pts, plotter.XY{X: float64(g.Nodes), Y: g.TurnaroundT.Median.Get()})
			}
		}
		msgs, turn = append(msgs, m), append(turn, t)
	}
	var figures []string
	for _, c := range []struct {
		title, y string
		series   []overviewSeries
		logY     bool
	}{
		{"median messages vs N", "messages", msgs, true},
		{"median turnaround vs N", "turnaround (T)", turn, true},
	} {
		svg, err := byNChart(c.title, c.y, c.series, c.logY)
		if err != nil {
			return err
		}
		if svg != "" {
			figures = append(figures, svg)
		}
	}
	var err error
	p.section("choose", func() {
		p.h2("", txt("Choosing an algorithm"))
		p.figures(figures)
		if len(figures) > 0 {
			p.legend(labels)
		}
		if err = writeSideBySide(p, all); err != nil {
			return
		}
		p.details("per-series", false, []run{txt("Each algorithm on its own: messages against N with ALGORITHMS.md's closed forms, turnaround and decided time per size")}, func() {
			if err = writeMessageCharts(p, all); err != nil {
				return
			}
			err = writeTimeCharts(p, all, faults)
		})
	})
	return err
}

// writeSideBySide draws, at the largest N any series ran, each series'
// distribution of messages and of turnaround, side by side; with a single
// trial per series it says the values instead.
func writeSideBySide(p *page, all []*series) error {
	maxN := 0
	for _, s := range all {
		for _, g := range s.groups {
			maxN = max(maxN, g.Nodes)
		}
	}
	var msgs, turn []namedSample
	for _, s := range all {
		for _, g := range s.groups {
			if g.Nodes != maxN {
				continue
			}
			msgs = append(msgs, namedSample{s.label, g.values[metricMessages]})
			turn = append(turn, namedSample{s.label, g.values[metricTurnaroundT]})
		}
	}
	if len(msgs) < 2 {
		return nil
	}
	p.h3("", txtf("Side by side at N = %d", maxN))
	single := !slices.ContainsFunc(msgs, func(s namedSample) bool { return len(s.values) > 1 })
	if single {
		var rows [][]cell
		for i := range msgs {
			rows = append(rows, []cell{textCell(msgs[i].name), valuesCell(msgs[i].values, 0), valuesCell(turn[i].values, 2)})
		}
		p.note("One trial each: the values, not distributions.")
		p.table("sortable", []string{"series", "messages", "turnaround (T)"}, rows)
		return nil
	}
	var figures []string
	for _, c := range []struct {
		title, x string
		samples  []namedSample
		logX     bool
	}{
		{fmt.Sprintf("messages at N = %d", maxN), "messages per trial", msgs, true},
		{fmt.Sprintf("turnaround at N = %d", maxN), "turnaround (T)", turn, false},
	} {
		svg, err := sideBySideChart(c.title, c.x, c.samples, c.logX)
		if err != nil {
			return err
		}
		figures = append(figures, svg)
	}
	p.figures(figures)
	return nil
}

// valuesCell lists a few values, "-" for none.
func valuesCell(vs []float64, decimals int) cell {
	if len(vs) == 0 {
		return cell{text: "-", num: true}
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fixedText(v, decimals)
	}
	return cell{text: strings.Join(parts, ", "), num: true, v: vs[0], hasV: true}
}

// writeFailover answers "how long is the cluster without a leader when
// one dies?": per configuration whose leaders crashed, the empirical CDF
// of failover (crash → new leader known) in milliseconds, as in the Raft
// paper's Figure 16, and of detection (crash → first suspicion or ballot)
// apart; a table of medians, p95, maxima, and quorum algorithms' terms and
// split votes.
func writeFailover(p *page, groups []*reportGroup) error {
	var fo, det []cdfSeries
	var rows [][]cell
	multiN := map[string]map[int]bool{}
	for _, g := range groups {
		if g.FailoverT.N == 0 {
			continue
		}
		k := algoLabel(g.Algorithm, g.Variant) + " " + g.Runtime + " " + g.Scenario
		if multiN[k] == nil {
			multiN[k] = map[int]bool{}
		}
		multiN[k][g.Nodes] = true
	}
	if len(multiN) == 0 {
		return nil
	}
	var labels []string
	failed := slices.DeleteFunc(slices.Clone(groups), func(g *reportGroup) bool { return g.FailoverT.N == 0 })
	heads := disruptionHeads(failed)
	for _, g := range failed {
		label := algoLabel(g.Algorithm, g.Variant)
		if g.Runtime != "sim" {
			label += " (" + g.Runtime + ")"
		}
		if len(multiN[algoLabel(g.Algorithm, g.Variant)+" "+g.Runtime+" "+g.Scenario]) > 1 || len(multiN) > 1 {
			label += " N=" + strconv.Itoa(g.Nodes)
		}
		if g.Scenario != "adhoc" && g.Scenario != "" {
			label += " · " + g.Scenario
		}
		labels = append(labels, label)
		fv, dv := g.failoverMs, g.detectMs
		fo = append(fo, cdfSeries{label: label, values: fv})
		det = append(det, cdfSeries{label: label, values: dv})
		f, d := describe(fv), describe(dv)
		terms, splits := describe(g.terms), describe(g.splits)
		rows = append(rows, append([]cell{textCell(label), intCell(len(fv)), medianCell(d, 1), medianCell(f, 1),
			optCell(f.P95, 1), optCell(f.Max, 1), medianCell(g.FailoverT, 2), optCell(terms.Mean, 2), optCell(splits.Mean, 2)},
			disruptionCells(g, heads)...))
	}
	var figures []string
	for _, c := range []struct {
		title  string
		series []cdfSeries
	}{{"failover: crash → new leader known", fo}, {"detection: crash → first suspicion or ballot", det}} {
		svg, err := cdfChart(c.title, "milliseconds after the crash", c.series, false)
		if err != nil {
			return err
		}
		if svg != "" {
			figures = append(figures, svg)
		}
	}
	p.section("failover", func() {
		p.h2("", txt("Failover"))
		p.note("Trials whose leader crashed. " +
			"Failover: from the leader's crash until every live process (quorum algorithms: a majority) knows the new leader. " +
			"Detection: from the crash until the first suspicion (quorum algorithms: the first ballot). " +
			"Cumulative share of trials against milliseconds, as in the Raft paper's Figure 16.")
		if len(heads) > 0 {
			p.note("Disruption figures (ALGORITHMS.md, \"Disruption\"), where a trial has them: median [min, max] over the trials.")
		}
		p.figures(figures)
		if len(figures) > 0 {
			p.legend(labels)
		} else {
			p.note("One trial per configuration: its figures are in the table, not a distribution.")
		}
		p.table("sortable", append([]string{"configuration", "trials", "detection ms", "failover ms", "failover p95 ms", "failover max ms",
			"failover (T)", "terms mean", "split votes mean"}, headNames(heads)...), rows)
	})
	return nil
}

func optFloat(o Opt[int64]) Opt[float64] {
	if !o.IsSet() {
		return Opt[float64]{}
	}
	return Some(float64(o.Get()))
}
