package reports

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WriteTable writes groups as an aligned plain-text table, one line per
// group: algorithm, variant, nodes, trials, median messages, the
// theoretical figure, median turnaround in T, the percentages of correct and
// live trials, the trials with a safety violation, and, when any leader
// crashed, the median failover in T — medians, as summary.csv, the report
// and compare use them, under the names summary.csv uses for the same
// figures. Runtime and scenario columns are added when the groups span more
// than one of either, so no two lines look alike. Missing figures print as
// "-".
func WriteTable(out io.Writer, groups []Group) error {
	runtimes, scenarios := map[string]bool{}, map[string]bool{}
	failover := false
	for _, g := range groups {
		runtimes[g.Runtime] = true
		scenarios[g.Scenario] = true
		failover = failover || g.FailoverT.N > 0
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
		col{"messages_median", true, func(g *Group) string { return fixed(g.Messages.Median, 1) }},
		col{"theory_messages", true, func(g *Group) string { return dash(g.TheoryMessages.String()) }},
		col{"turnaround_t_median", true, func(g *Group) string { return fixed(g.TurnaroundT.Median, 2) }},
		col{"correct%", true, func(g *Group) string { return percent(g.CorrectShare) }},
		col{"live%", true, func(g *Group) string { return percent(g.LiveShare) }},
		col{"unsafe_trials", true, func(g *Group) string { return strconv.Itoa(g.UnsafeTrials) }},
	)
	if failover {
		cols = append(cols, col{"failover_t_median", true, func(g *Group) string { return fixed(g.FailoverT.Median, 2) }})
	}

	cells := make([][]string, len(groups)+1)
	widths := make([]int, len(cols))
	for r := range cells {
		cells[r] = make([]string, len(cols))
		for c, cl := range cols {
			s := cl.title
			if r > 0 {
				s = cl.cell(&groups[r-1])
			}
			s = Printable(s)
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

// Printable writes every control character but the newline, every bidi
// control and every invalid byte of s visibly (\x1b, \u202e, U+FFFD): the
// rows' text comes from outside (a program's name, its errors, a scenario
// file), and a terminal must show it, never obey it.
func Printable(s string) string {
	if plainASCII(s) || utf8.ValidString(s) && !strings.ContainsFunc(s, isEscape) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isEscape(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// plainASCII reports whether s is printable ASCII only (space to tilde),
// which Printable keeps as it is: the common cell, told without a look-up
// in the Unicode tables per character.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

func isEscape(r rune) bool {
	return r != '\n' && unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
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

// WriteFailingTrials lists, under the table, the trials that violated
// safety or were not live, with their seeds and the first violation, at
// most limit of them, then how many more. It writes nothing when every
// trial was safe and live. replay, when set, gives the command that runs a
// listed trial again (HTMLOptions.Replay), written under it.
func WriteFailingTrials(out io.Writer, rows []Row, limit int, replay func(*Row) string) error {
	var b strings.Builder
	shown, total := 0, 0
	for i := range rows {
		r := &rows[i]
		var what []string
		if r.SafetyViolations > 0 {
			what = append(what, fmt.Sprintf("%d safety violation(s)", r.SafetyViolations))
		}
		if !r.Live {
			what = append(what, "not live")
		}
		if len(what) == 0 {
			continue
		}
		total++
		if shown == limit {
			continue
		}
		shown++
		if total == 1 {
			b.WriteString("\nunsafe or not live trials:\n")
		}
		fmt.Fprintf(&b, "  %s/%s %s %s N=%d trial %d (seed %d): %s", r.Algorithm, r.Variant, r.Runtime, r.Scenario,
			r.Nodes, r.Trial, r.Seed, strings.Join(what, ", "))
		switch {
		case r.Violation != "":
			b.WriteString(": " + r.Violation)
		case r.Error != "":
			b.WriteString(": " + r.Error)
		}
		b.WriteByte('\n')
		if replay != nil {
			if cmd := replay(r); cmd != "" {
				b.WriteString("    replay: " + cmd + "\n")
			}
		}
	}
	if total > shown {
		fmt.Fprintf(&b, "  ... and %d more (the violation column of results.csv lists every trial)\n", total-shown)
	}
	_, err := io.WriteString(out, Printable(b.String()))
	return err
}
