package reports

import (
	"fmt"
	"slices"
	"strings"
)

// The incident view (issue 37): the failures that took real clusters down
// pass "one leader per term", so where the report shows failover it shows
// the disruption figures too, and a run of an incident scenario opens with
// a matrix of them per variant beside the signature its scenario expects,
// and a time-line of who believed it led.

// disruptionColumn is one disruption figure as the report shows it.
type disruptionColumn struct {
	name     string
	decimals int
}

// disruptionColumns are the disruption figures of results.csv (ALGORITHMS.md,
// "Disruption"), in the order the report shows them.
var disruptionColumns = []disruptionColumn{
	{"elections", 0}, {"disruptions", 0}, {"heal_disruptions", 0},
	{"leaderless_t", 1}, {"stale_leader_s", 3}, {"term_inflation", 0},
}

// columnStat describes a numeric column over g's rows, those without an
// error or without the figure left out: the disruption columns and those
// a signature bounds (reportReader.columns).
func columnStat(g *reportGroup, column string) Stat {
	return describe(g.columns[column])
}

// rangeCell is a median with the range of the trials, "median [min, max]",
// sorted by the median; empty when no trial has the figure.
func rangeCell(s Stat, decimals int) cell {
	if !s.Median.IsSet() {
		return cell{num: true}
	}
	text := fixedText(s.Median.Get(), decimals)
	if s.Min.Get() != s.Max.Get() {
		text += " [" + fixedText(s.Min.Get(), decimals) + ", " + fixedText(s.Max.Get(), decimals) + "]"
	}
	return cell{text: text, num: true, v: s.Median.Get(), hasV: true, title: fmt.Sprintf("median [min, max] over %d trial%s", s.N, plural(s.N))}
}

// disruptionHeads are the disruption columns any of groups has a figure
// of: a table shows only those.
func disruptionHeads(groups []*reportGroup) []disruptionColumn {
	var out []disruptionColumn
	for _, c := range disruptionColumns {
		if slices.ContainsFunc(groups, func(g *reportGroup) bool { return columnStat(g, c.name).N > 0 }) {
			out = append(out, c)
		}
	}
	return out
}

// disruptionCells are a group's cells under heads.
func disruptionCells(g *reportGroup, heads []disruptionColumn) []cell {
	out := make([]cell, len(heads))
	for i, c := range heads {
		out[i] = rangeCell(columnStat(g, c.name), c.decimals)
	}
	return out
}

// headNames are the table headings of heads: the column names of
// results.csv, which expect.columns names too.
func headNames(heads []disruptionColumn) []string {
	out := make([]string, len(heads))
	for i, c := range heads {
		out[i] = c.name
	}
	return out
}

// Signature is one condition of a scenario's expected signature (its
// expect.columns, workloads.Signatures) judged on one configuration: the
// incident view sets it beside the figure it bounds, marked held or not.
type Signature struct {
	Scenario, Algorithm, Variant string
	Nodes                        int
	Column                       string
	Condition                    string // the bounds as written: "median >=1"
	Held                         bool
}

// incidentGroups are the groups of the incident scenarios, by scenario in
// the groups' order.
func incidentGroups(groups []*reportGroup, incident func(string) bool) (names []string, by map[string][]*reportGroup) {
	by = map[string][]*reportGroup{}
	if incident == nil {
		return nil, by
	}
	for _, g := range groups {
		if !incident(g.Scenario) {
			continue
		}
		if by[g.Scenario] == nil {
			names = append(names, g.Scenario)
		}
		by[g.Scenario] = append(by[g.Scenario], g)
	}
	return names, by
}

// signaturesOf are the conditions judged on g.
func signaturesOf(g *reportGroup, sigs []Signature) []Signature {
	var out []Signature
	for _, s := range sigs {
		if s.Scenario == g.Scenario && s.Algorithm == g.Algorithm && s.Variant == g.Variant && s.Nodes == g.Nodes {
			out = append(out, s)
		}
	}
	return out
}

// matrixHeads are the columns of an incident's matrix: the disruption
// figures its trials have, then the other columns its signature bounds.
func matrixHeads(groups []*reportGroup, sigs []Signature) []disruptionColumn {
	heads := disruptionHeads(groups)
	for _, g := range groups {
		for _, s := range signaturesOf(g, sigs) {
			if !slices.ContainsFunc(heads, func(c disruptionColumn) bool { return c.name == s.Column }) {
				heads = append(heads, disruptionColumn{s.Column, 3})
			}
		}
	}
	return heads
}

// matrixCell is a group's figure under head with the conditions of its
// signature on it: "3 [1, 5] · median >=1 ✓", marked bad when one failed.
func matrixCell(g *reportGroup, head disruptionColumn, sigs []Signature) cell {
	c := rangeCell(columnStat(g, head.name), head.decimals)
	if c.text == "" {
		c.text = "-"
	}
	var conds []string
	held := true
	for _, s := range sigs {
		if s.Column != head.name {
			continue
		}
		mark := "✓"
		if !s.Held {
			mark, held = "✗", false
		}
		conds = append(conds, s.Condition+" "+mark)
	}
	if len(conds) > 0 {
		c.text += " · expected " + strings.Join(conds, ", ")
		c.classes = "good"
		if !held {
			c.classes = "bad"
		}
	}
	return c
}

// writeIncidentMatrix writes an incident scenario's matrix: one row per
// configuration, one column per disruption figure (and per other column
// its signature bounds), each cell the median [min, max] over the trials
// beside the expected signature, held ✓ or not ✗.
func writeIncidentMatrix(p *page, name string, groups []*reportGroup, sigs []Signature) {
	heads := matrixHeads(groups, sigs)
	var rows []tableRow
	for _, g := range groups {
		own := signaturesOf(g, sigs)
		cells := []cell{linkCell("#"+g.anchor, algoLabel(g.Algorithm, g.Variant)), textCell(g.Runtime), intCell(g.Nodes), intCell(g.Trials)}
		class := ""
		for _, h := range heads {
			c := matrixCell(g, h, own)
			if c.classes == "bad" {
				class = "bad"
			}
			cells = append(cells, c)
		}
		rows = append(rows, tableRow{class: class, cells: cells})
	}
	if len(heads) == 0 {
		p.note("No trial of " + name + " has a disruption figure (election algorithms have them, mutual exclusion not).")
	}
	p.tableRows("incident-"+name, "sortable", append([]string{"variant", "runtime", "nodes", "trials"}, headNames(heads)...), rows)
}

// writeIncidents writes the incident view of each incident scenario in
// the rows: its matrix, then a leadership time-line of one trial per
// configuration from the trace (leads), or a line saying there is none.
func writeIncidents(p *page, names []string, by map[string][]*reportGroup, leads map[groupKey]*TraceTrial, traced map[traceKey]*Row, opt HTMLOptions) {
	if len(names) == 0 {
		return
	}
	p.section("incident", func() {
		p.h2("", txt("Incident"))
		p.note("A scenario of the incident library (docs/incidents.md), or one replaying it against other algorithms: per configuration, the disruption figures (ALGORITHMS.md, \"Disruption\") " +
			"and the other columns its signature bounds, as median [min, max] over the trials, each beside the signature the scenario expects " +
			"(✓ held, ✗ failed). leaderless_t: time after the first leader with no leader followed by a majority, in T; stale_leader_s: time with two or more leaders, in seconds.")
		for _, name := range names {
			p.h3("", txt(name))
			writeIncidentMatrix(p, name, by[name], opt.Signatures)
			writeLeadership(p, by[name], leads, traced, opt)
		}
	})
}

// LeadershipMaxNodes bounds the processes a time-line draws a lane for.
const LeadershipMaxNodes = 1024

// writeLeadership draws, per configuration, who believed it led, when and
// in which term, in the first trial the trace holds.
func writeLeadership(p *page, groups []*reportGroup, leads map[groupKey]*TraceTrial, traced map[traceKey]*Row, opt HTMLOptions) {
	var missing, unseen []string
	drawn := 0
	for _, g := range groups {
		label := algoLabel(g.Algorithm, g.Variant)
		if !g.seen {
			// A time-line is drawn from the leader's messages, and a
			// server's are not visible: an empty one would say nobody led.
			unseen = append(unseen, label)
			continue
		}
		t := leads[groupKey{g.Algorithm, g.Variant, g.Runtime, g.Scenario, g.Nodes}]
		if t == nil || opt.Leads == nil {
			missing = append(missing, label)
			continue
		}
		r := traced[t.key()]
		if r != nil && r.Runtime != g.Runtime {
			r = nil // the same trial of another group ("" and sim)
		}
		tNs := 0.0
		var fw []FaultWindow
		if r != nil {
			tNs = r.TS * 1e9
			if opt.Faults != nil {
				fw = opt.Faults(r)
			}
		}
		title := fmt.Sprintf("%s n=%d (%s) — trial %d, seed %d: who led, when, in which term", label, g.Nodes, g.Runtime, t.Trial, t.Seed)
		bands := leadBands(t.Leads)
		p.details("", true, []run{txt(title)}, func() {
			if len(bands) == 0 {
				p.note("No process led in this trial.")
				return
			}
			if g.Nodes > LeadershipMaxNodes {
				// A lane a process: a size the rows claim is not drawn
				// beyond what a page can hold.
				p.note(fmt.Sprintf("Not drawn: %d processes, more than the %d a time-line has lanes for.", g.Nodes, LeadershipMaxNodes))
				return
			}
			p.svg(leadershipTimeline(title, g.Nodes, bands, t.End, tNs, fw))
		})
		drawn++
	}
	if drawn > 0 {
		p.note("One lane per process (its position); a band while it sent the messages only a leader sends, labelled with their term; two bands at once are two processes that believed they led. The strip under the axis: fault windows. Hover for times.")
	}
	if len(missing) > 0 {
		p.note("No time-line of " + strings.Join(missing, ", ") + ": the report was given no trace of their trials (electbench run --trace FILE).")
	}
	if len(unseen) > 0 {
		p.note("No time-line of " + strings.Join(unseen, ", ") + ": servers run from outside, whose messages are not visible (docs/SERVERS.md); their leadership is in the figures above.")
	}
}
