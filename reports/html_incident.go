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

// columnStat describes a numeric column over rows, those without an error
// or without the figure left out.
func columnStat(rows []*Row, column string) Stat {
	return describe(metricValues(rows, func(r *Row) Opt[float64] {
		if v, ok := r.Number(column); ok {
			return Some(v)
		}
		return Opt[float64]{}
	}))
}

// rangeCell is a median with the range of the trials, "median [min, max]",
// sorted by the median; empty when no trial has the figure.
func rangeCell(s Stat, decimals int) cell {
	if !s.Median.Set {
		return cell{num: true}
	}
	text := fixedText(s.Median.V, decimals)
	if s.Min.V != s.Max.V {
		text += " [" + fixedText(s.Min.V, decimals) + ", " + fixedText(s.Max.V, decimals) + "]"
	}
	return cell{text: text, num: true, v: s.Median.V, hasV: true, title: fmt.Sprintf("median [min, max] over %d trial%s", s.N, plural(s.N))}
}

// disruptionHeads are the disruption columns any of groups has a figure
// of: a table shows only those.
func disruptionHeads(groups []*reportGroup) []disruptionColumn {
	var out []disruptionColumn
	for _, c := range disruptionColumns {
		if slices.ContainsFunc(groups, func(g *reportGroup) bool { return columnStat(g.rows, c.name).N > 0 }) {
			out = append(out, c)
		}
	}
	return out
}

// disruptionCells are a group's cells under heads.
func disruptionCells(g *reportGroup, heads []disruptionColumn) []cell {
	out := make([]cell, len(heads))
	for i, c := range heads {
		out[i] = rangeCell(columnStat(g.rows, c.name), c.decimals)
	}
	return out
}

// headNames are the table headings of heads, marked as median and range.
func headNames(heads []disruptionColumn) []string {
	out := make([]string, len(heads))
	for i, c := range heads {
		out[i] = strings.ReplaceAll(c.name, "_", " ")
	}
	return out
}
