package reports

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
)

// WriteCompareHTML writes a comparison as a self-contained page: the
// verdict counts, then one sortable line per group and metric with both
// medians, the change (with a bar), the p-value and the verdict;
// regressions first. base and new name the two sides.
func WriteCompareHTML(out io.Writer, c Comparison, base, new string) error {
	p := newPage("electbench compare")
	p.para("meta", txt("Base: "), code(base), txtf(" (%d rows) · New: ", c.BaseRows), code(new),
		txtf(" (%d rows) · shares of safe, live and correct trials: two-sided Fisher exact · medians: two-sided Mann–Whitney U · significant: Benjamini–Hochberg q ≤ α=%s over %s that could reach it · threshold ±%s on the median · a median verdict needs at least %d trials per side · a safety violation new in NEW is always a regression",
			c.NewRows, fixedText(c.Alpha, 4), familyText(c.Tests), strings.TrimPrefix(fmtPercent(c.Threshold), "+"), c.MinSamples))
	counts := map[Verdict]int{}
	for _, ch := range c.Changes {
		counts[ch.Verdict]++
	}
	var tally []run
	for _, v := range []Verdict{Regression, Improvement, NoChange, CannotDecide, OnlyInBase, OnlyInNew} {
		tally = append(tally, span(verdictClass(v), fmt.Sprintf("%d %s", counts[v], v)), txt(" · "))
	}
	p.para("", tally...)
	writeNewCounterexamples(p, c.Counterexamples)
	if counts[Regression] > 0 || len(c.Counterexamples) > 0 {
		p.para("bad", bold("Significant regression: compare exits 1."))
		var items [][]run
		for _, ch := range c.Regressions() {
			items = append(items, []run{txtf("%s: %s (%s)", ch.Name(), ch.Figures(), ch.Reason)})
		}
		p.list("bad", items)
	} else {
		p.para("good", txt("No significant regression."))
	}
	head := []string{"verdict", "algorithm", "variant", "runtime", "scenario", "nodes", "metric", "base n", "new n",
		"base", "new", "change", "", "p", "q", "reason"}
	rows := changeRows(c, func(ch *Change) string { return string(ch.Verdict) }, true)
	p.tableID("changes", "sortable", head, rows)
	p.note(CompareMethod + ".")
	return p.write(out)
}

// WriteCompareHTMLFile writes WriteCompareHTML's page to path atomically.
func WriteCompareHTMLFile(path string, c Comparison, base, new string) error {
	return writeFileAtomic(filepath.Dir(path), path, func(out io.Writer) error {
		return WriteCompareHTML(out, c, base, new)
	})
}

// shareCell shows k/n trials, sorted by the share.
func shareCell(k, n int, share Opt[float64]) cell {
	c := cell{text: shareText(k, n), num: true}
	if share.IsSet() {
		c.v, c.hasV = share.Get(), true
	}
	return c
}

func verdictClass(v Verdict) string {
	switch v {
	case Regression:
		return "bad"
	case Improvement:
		return "good"
	case CannotDecide, OnlyInBase, OnlyInNew:
		return "warn"
	}
	return ""
}

// changeBar is a small inline SVG bar of a relative change, ±100% full
// width, red for growth and green for shrinkage.
func changeBar(d Opt[float64]) string {
	if !d.IsSet() || d.Get() == 0 {
		return ""
	}
	w := math.Min(1, math.Abs(d.Get())) * 50
	x, fill := 50.0, "#b00020"
	if d.Get() < 0 {
		x, fill = 50-w, "#1b7a2e"
	}
	return fmt.Sprintf(`<svg width="100" height="10" viewBox="0 0 100 10" aria-hidden="true"><line x1="50" y1="0" x2="50" y2="10" stroke="#999"/><rect x="%s" y="2" width="%s" height="6" fill="%s"/></svg>`,
		num(x), num(w), fill)
}

// changeRows is the table of a comparison's changes, most serious verdict
// first, for compare's page and twin's: each with its verdict (as label
// names it), the group, the metric, both sides' counts and figures, the
// change with its bar, p and the reason; with the runtime column when
// withRuntime (twin groups across runtimes: it has none).
func changeRows(c Comparison, label func(*Change) string, withRuntime bool) [][]cell {
	var rows [][]cell
	for _, v := range []Verdict{Regression, Improvement, CannotDecide, OnlyInBase, OnlyInNew, NoChange} {
		for _, ch := range c.Changes {
			if ch.Verdict != v {
				continue
			}
			vc := textCell(label(&ch))
			vc.classes = verdictClass(ch.Verdict)
			change := cell{text: deltaText(ch.Delta) + ch.IntervalText(), num: true}
			if ch.Kind == KindMedian && ch.Shift.IsSet() {
				change.text = deltaText(ch.Delta) + " · shift " + signedText(ch.Shift) + ch.IntervalText()
			}
			baseC, newC := optCell(ch.BaseMedian, 3), optCell(ch.NewMedian, 3)
			if ch.Kind == KindShare {
				change.text = pointsText(ch.Delta) + " pts" + ch.IntervalText()
				baseC, newC = shareCell(ch.BaseCount, ch.BaseN, ch.BaseShare), shareCell(ch.NewCount, ch.NewN, ch.NewShare)
			}
			if ch.Delta.IsSet() && !math.IsInf(ch.Delta.Get(), 0) {
				change.v, change.hasV = ch.Delta.Get(), true
			}
			row := []cell{vc, textCell(ch.Algorithm), textCell(ch.Variant)}
			if withRuntime {
				row = append(row, textCell(ch.Runtime))
			}
			rows = append(rows, append(row, textCell(ch.Scenario), intCell(ch.Nodes), textCell(ch.Metric),
				intCell(ch.BaseN), intCell(ch.NewN), baseC, newC, change, cell{svg: changeBar(ch.Delta)},
				pCell(ch.P), pCell(ch.Q), textCell(ch.Reason)))
		}
	}
	return rows
}

// pCell shows a p- or q-value in scientific notation (fmtP), sorted by
// its value: 1e-16 is not 0.
func pCell(o Opt[float64]) cell {
	if !o.IsSet() {
		return cell{text: "-", num: true}
	}
	return cell{text: fmtP(o.Get()), num: true, v: o.Get(), hasV: true}
}
