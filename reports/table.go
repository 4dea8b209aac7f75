package reports

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteTable writes groups as an aligned plain-text table, one line per
// group: algorithm, variant, nodes, trials, mean messages, the theoretical
// figure, mean turnaround in T, and the percentages of correct and live
// trials, under the names summary.csv uses for the same figures.
// Runtime and scenario columns are added when the groups span more than one
// of either, so no two lines look alike. Missing figures print as "-".
func WriteTable(out io.Writer, groups []Group) error {
	runtimes, scenarios := map[string]bool{}, map[string]bool{}
	for _, g := range groups {
		runtimes[g.Runtime] = true
		scenarios[g.Scenario] = true
	}
	type col struct {
		title string
		right bool // numbers align right
		cell  func(g *Group) string
	}
	cols := []col{
		{"algorithm", false, func(g *Group) string { return dash(g.Algorithm) }},
		{"variant", false, func(g *Group) string { return dash(g.Variant) }},
	}
	if len(runtimes) > 1 {
		cols = append(cols, col{"runtime", false, func(g *Group) string { return dash(g.Runtime) }})
	}
	if len(scenarios) > 1 {
		cols = append(cols, col{"scenario", false, func(g *Group) string { return dash(g.Scenario) }})
	}
	cols = append(cols,
		col{"nodes", true, func(g *Group) string { return strconv.Itoa(g.Nodes) }},
		col{"trials", true, func(g *Group) string { return strconv.Itoa(g.Trials) }},
		col{"messages_mean", true, func(g *Group) string { return fixed(g.Messages.Mean, 1) }},
		col{"theory_messages", true, func(g *Group) string { return dash(g.TheoryMessages.String()) }},
		col{"turnaround_t_mean", true, func(g *Group) string { return fixed(g.TurnaroundT.Mean, 2) }},
		col{"correct%", true, func(g *Group) string { return percent(g.CorrectShare) }},
		col{"live%", true, func(g *Group) string { return percent(g.LiveShare) }},
	)

	cells := make([][]string, len(groups)+1)
	widths := make([]int, len(cols))
	for r := range cells {
		cells[r] = make([]string, len(cols))
		for c, cl := range cols {
			s := cl.title
			if r > 0 {
				s = cl.cell(&groups[r-1])
			}
			cells[r][c] = s
			widths[c] = max(widths[c], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	for _, row := range cells {
		var line strings.Builder
		for c, s := range row {
			if c > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[c]-utf8.RuneCountInString(s))
			if cols[c].right {
				line.WriteString(pad + s)
			} else {
				line.WriteString(s + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fixed(o Opt[float64], decimals int) string {
	if !o.Set {
		return "-"
	}
	return strconv.FormatFloat(o.V, 'f', decimals, 64)
}

func percent(share float64) string { return fmt.Sprintf("%.1f", 100*share) }
