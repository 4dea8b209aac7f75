package reports

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TableOptions shape WriteTable's table for a terminal.
type TableOptions struct {
	// Wide writes every column under summary.csv's names; otherwise the
	// table is the narrow form, short titles, for a person at a terminal.
	Wide bool
	// Width, when positive, is the terminal's width: the narrow form leaves
	// out its least needed columns until it fits, and says so under it.
	Width int
}

// WriteTable writes groups as an aligned plain-text table, one line per
// group: algorithm, variant, nodes, trials, median messages, the
// theoretical figure, median turnaround in T, the percentages of correct and
// live trials, the trials with a safety violation, and, when any leader
// crashed, the median failover in T — medians, as summary.csv, the report
// and compare use them; the wide form titles them with summary.csv's names.
// Runtime and scenario columns are added when the groups span more than one
// of either, so no two lines look alike. Missing figures print as "-".
func WriteTable(out io.Writer, groups []Group, opt TableOptions) error {
	runtimes, scenarios := map[string]bool{}, map[string]bool{}
	failover := false
	for _, g := range groups {
		runtimes[g.Runtime] = true
		scenarios[g.Scenario] = true
		failover = failover || g.FailoverT.N > 0
	}
	type col struct {
		title, wide string
		right       bool // numbers align right
		drop        int  // the narrow form leaves out higher first to fit; 0 never
		cell        func(g *Group) string
	}
	cols := []col{
		{"algorithm", "algorithm", false, 0, func(g *Group) string { return dash(g.Algorithm) }},
		{"variant", "variant", false, 3, func(g *Group) string { return dash(g.Variant) }},
	}
	if len(runtimes) > 1 {
		cols = append(cols, col{"rt", "runtime", false, 0, func(g *Group) string { return dash(g.Runtime) }})
	}
	if len(scenarios) > 1 {
		cols = append(cols, col{"scenario", "scenario", false, 0, func(g *Group) string { return dash(g.Scenario) }})
	}
	cols = append(cols,
		col{"N", "nodes", true, 0, func(g *Group) string { return strconv.Itoa(g.Nodes) }},
		col{"trials", "trials", true, 4, func(g *Group) string { return strconv.Itoa(g.Trials) }},
		col{"msgs", "messages_median", true, 0, func(g *Group) string { return countText(g.Messages.Median) }},
		col{"theory", "theory_messages", true, 5, func(g *Group) string { return dash(g.TheoryMessages.String()) }},
		col{"turn/T", "turnaround_t_median", true, 2, func(g *Group) string { return fixed(g.TurnaroundT.Median, 2) }},
		col{"ok%", "correct%", true, 0, func(g *Group) string { return percent(g.CorrectShare) }},
		col{"live%", "live%", true, 0, func(g *Group) string { return percent(g.LiveShare) }},
		col{"unsafe", "unsafe_trials", true, 0, func(g *Group) string { return strconv.Itoa(g.UnsafeTrials) }},
	)
	if failover {
		cols = append(cols, col{"fail/T", "failover_t_median", true, 1, func(g *Group) string { return fixed(g.FailoverT.Median, 2) }})
	}
	cells := make([][]string, len(groups)+1)
	widths := make([]int, len(cols))
	for r := range cells {
		cells[r] = make([]string, len(cols))
		for c, cl := range cols {
			s := cl.title
			if opt.Wide {
				s = cl.wide
			}
			if r > 0 {
				s = cl.cell(&groups[r-1])
			}
			s = Printable(s)
			cells[r][c] = s
			widths[c] = max(widths[c], utf8.RuneCountInString(s))
		}
	}
	drops, titles := make([]int, len(cols)), make([]string, len(cols))
	for c, cl := range cols {
		drops[c], titles[c] = cl.drop, cl.title
	}
	width := opt.Width
	if opt.Wide {
		width = 0
	}
	keep, left := fitColumns(widths, drops, titles, width)
	var b strings.Builder
	for _, row := range cells {
		var line strings.Builder
		first := true
		for c, s := range row {
			if !keep[c] {
				continue
			}
			if !first {
				line.WriteString("  ")
			}
			first = false
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
	if len(left) > 0 {
		fmt.Fprintf(&b, "(%s left out to fit %d columns; --print wide shows every column)\n", strings.Join(left, ", "), opt.Width)
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// fitColumns chooses the columns of a table whose cells are widths wide
// (two spaces between them) to fit width (0: every column): it leaves out
// the droppable columns (drop > 0) highest drop first until the line fits,
// and returns which it keeps and the titles of those it left out.
func fitColumns(widths, drops []int, titles []string, width int) (keep []bool, left []string) {
	keep = make([]bool, len(widths))
	for c := range keep {
		keep[c] = true
	}
	lineWidth := func() int {
		w := 0
		for c := range widths {
			if keep[c] {
				w += widths[c] + 2
			}
		}
		return w - 2
	}
	for width > 0 && lineWidth() > width {
		worst := -1 // the droppable column kept with the highest drop
		for c, d := range drops {
			if keep[c] && d > 0 && (worst < 0 || d > drops[worst]) {
				worst = c
			}
		}
		if worst < 0 {
			break
		}
		keep[worst] = false
		left = append(left, titles[worst])
	}
	return keep, left
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
	if !o.IsSet() {
		return "-"
	}
	return strconv.FormatFloat(o.Get(), 'f', decimals, 64)
}

func percent(share float64) string { return fmt.Sprintf("%.1f", 100*share) }

// WriteFailingTrials lists, under the table, the trials that violated
// safety or were not live, with their seeds and the first violation, at
// most limit of them, then how many more, and counts apart the trials not
// live as their scenario expects (Row.ExpectedOutcome). It writes nothing
// when every trial was safe and live. replay, when set, gives the command that runs a
// listed trial again (HTMLOptions.Replay), written under it.
func WriteFailingTrials(out io.Writer, rows Rows, limit int, replay func(*Row) string, ids func(*Row) []string) error {
	f := FailingTrials{Limit: limit, Replay: replay, IDs: ids}
	if err := rows(func(r *Row) error { f.Add(r); return nil }); err != nil {
		return err
	}
	return f.Write(out)
}

// FailingTrials is WriteFailingTrials over rows handed to it one at a
// time (Add), to be written once they are all read (Write): a run's end
// reads its rows once for its summary and this list. It keeps the lines
// it lists, not the rows.
type FailingTrials struct {
	Limit  int                 // trials listed at most
	Replay func(*Row) string   // as WriteFailingTrials' replay
	IDs    func(*Row) []string // as WriteFailingTrials' ids

	b                      strings.Builder
	shown, total, expected int
}

// Add lists r when it is unsafe or not live, and counts it.
func (f *FailingTrials) Add(r *Row) {
	var what []string
	if r.ExpectedOutcome() {
		f.expected++
		return
	}
	if r.SafetyViolations > 0 {
		what = append(what, fmt.Sprintf("%d safety violation(s)", r.SafetyViolations))
	}
	if !r.Live {
		what = append(what, "not live")
	}
	if len(what) == 0 {
		return
	}
	f.total++
	if f.shown == f.Limit {
		return
	}
	f.shown++
	b := &f.b
	if f.total == 1 {
		b.WriteString("\nunsafe or not live trials:\n")
	}
	fmt.Fprintf(b, "  %s/%s %s %s N=%d trial %d (seed %d): %s", r.Algorithm, r.Variant, r.Runtime, r.Scenario,
		r.Nodes, r.Trial, r.Seed, strings.Join(what, ", "))
	switch {
	case r.Violation != "":
		var known []string
		if f.IDs != nil {
			known = f.IDs(r)
		}
		b.WriteString(": " + ForReader(r.Violation, known))
	case r.Error != "":
		b.WriteString(": " + ForPeople(r.Error))
	}
	b.WriteByte('\n')
	if f.Replay != nil {
		if cmd := f.Replay(r); cmd != "" {
			b.WriteString("    replay: " + cmd + "\n")
		}
	}
}

// Write writes the list of the rows added; it may be called again, after
// more rows, and writes the list as it then stands.
func (f *FailingTrials) Write(out io.Writer) error {
	var tail strings.Builder
	if f.total > f.shown {
		fmt.Fprintf(&tail, "  ... and %d more (the violation column of results.csv lists every trial)\n", f.total-f.shown)
	}
	if f.expected > 0 {
		fmt.Fprintf(&tail, "\n%d trial(s) not live, as their scenario expects (liveness: never, or at-least P%% of the trials)\n", f.expected)
	}
	_, err := io.WriteString(out, Printable(f.b.String()+tail.String()))
	return err
}

var (
	// hexID is a minted identity as a row writes it: 64 hex digits.
	hexID = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	// longDecimal is a figure with more decimals than a person reads,
	// with its unit: 1.610507511s, 333.3333333333333T.
	longDecimal = regexp.MustCompile(`\b(\d+\.\d{5,})(ns|µs|ms|s|T|D)?\b`)
)

// ForPeople shortens what a line meant for a person carries at a machine's
// precision (the rows keep it whole): a minted identity to its first 8 hex
// digits and "…", a figure with more than four decimals to four
// significant digits.
func ForPeople(s string) string {
	s = hexID.ReplaceAllStringFunc(s, func(id string) string { return id[:8] + "…" })
	return longDecimal.ReplaceAllStringFunc(s, func(m string) string {
		sub := longDecimal.FindStringSubmatch(m)
		v, err := strconv.ParseFloat(sub[1], 64)
		if err != nil {
			return m
		}
		return strconv.FormatFloat(v, 'g', 4, 64) + sub[2]
	})
}

// processName writes a process for people as its position and, when ids
// (one per position) are known, its identity: p4 (id 17), p4 (id
// 5f3a9c01…). Positions and identities are both numbers; written bare,
// "crash(4) … while 4 is alive" cannot be read. The report's diagrams and
// the explorer's page (its data's names) both take it.
func processName(p int, ids []string) string {
	if p < 0 || p >= len(ids) {
		return "p" + strconv.Itoa(p)
	}
	return "p" + strconv.Itoa(p) + " (id " + ForPeople(ids[p]) + ")"
}

// ForReader writes a violation, an error or a fault schedule for people:
// positions and identities, both numbers in the results' columns
// ("crash(4)", "process 4 (id 1) decided 1 while 6 is alive"), become
// distinct: a position p4, an identity id 17, a process whose identity
// ids (by position; nil: unknown) gives p4 (id 17). Then ForPeople. The
// columns keep their text: this is the wording of the lines people read,
// the report's and the terminal's.
func ForReader(s string, ids []string) string {
	pos := func(m string) string {
		p, err := strconv.Atoi(m)
		if err != nil {
			return m
		}
		return processName(p, ids)
	}
	id := func(v string) string {
		if p := slices.Index(ids, v); p >= 0 {
			return processName(p, ids)
		}
		return "id " + v
	}
	s = processWithID.ReplaceAllString(s, "${1}p$2 (id $3)")
	s = processesPair.ReplaceAllStringFunc(s, func(m string) string {
		sub := processesPair.FindStringSubmatch(m)
		return pos(sub[1]) + " and " + pos(sub[2])
	})
	s = processBare.ReplaceAllStringFunc(s, func(m string) string { return pos(processBare.FindStringSubmatch(m)[1]) })
	s = leaderPair.ReplaceAllStringFunc(s, func(m string) string {
		sub := leaderPair.FindStringSubmatch(m)
		return "leaders (" + id(sub[1]) + " and " + id(sub[2]) + ")"
	})
	s = bareIdentity.ReplaceAllStringFunc(s, func(m string) string {
		sub := bareIdentity.FindStringSubmatch(m)
		return sub[1] + id(sub[2])
	})
	s = faultTargets.ReplaceAllStringFunc(s, func(m string) string {
		sub := faultTargets.FindStringSubmatch(m)
		var names []string
		for _, p := range strings.Split(sub[2], ",") {
			names = append(names, pos(p))
		}
		return sub[1] + strings.Join(names, ", ") + sub[3] + ")"
	})
	s = partitionSides.ReplaceAllStringFunc(s, func(m string) string {
		return "[" + number.ReplaceAllString(m[1:len(m)-1], "p$0") + "]"
	})
	return ForPeople(s)
}

// The forms ForReader rewrites: the checker's (nodes/check) and the fault
// schedule's (nodes/trial.Positions, chaos).
var (
	processWithID  = regexp.MustCompile(`\b(?:process )?((?:master )?)(\d+) \(id ([^)]*)\)`)
	processesPair  = regexp.MustCompile(`\bprocesses (\d+) and (\d+)\b`)
	processBare    = regexp.MustCompile(`\bprocess (\d+)\b`)
	leaderPair     = regexp.MustCompile(`\bleaders \((\d+|[0-9a-f]{64}) and (\d+|[0-9a-f]{64})\)`)
	bareIdentity   = regexp.MustCompile(`\b((?:decided|while|believe) )(\d+|[0-9a-f]{64})\b`)
	faultTargets   = regexp.MustCompile(`\b((?:crash|pause|restart|slow|suspect)\(|[a-z][a-z-]*\((?:in|out|both):)((?:\d+,)*\d+)((?:,\+\d+)?)\)`)
	partitionSides = regexp.MustCompile(`\[[\d,|+]+\]`)
	number         = regexp.MustCompile(`\d+`)
)

// countText prints a median of counts: whole when it is (8001, not 8001.0),
// else with its half.
func countText(o Opt[float64]) string {
	if o.IsSet() && o.Get() == math.Trunc(o.Get()) {
		return strconv.FormatFloat(o.Get(), 'f', 0, 64)
	}
	return fixed(o, 1)
}
