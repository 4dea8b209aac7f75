package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A twin comparison (electbench twin) is Compare across runtimes: the same
// scenario and seeds run on the simulator (base) and live (new), group by
// group, with compare's statistics — shares by Fisher's exact test,
// medians by Mann–Whitney — and its threshold. A significant difference
// beyond the threshold exceeds the noise; which way it goes is said
// plainly rather than as a regression.

// NewTwinSide starts a side of a twin comparison (Twin), gathered a row
// at a time as compare gathers its sides (CompareSide.Add), so that twin
// holds the figures of its runs, not their rows. It groups across
// runtimes and gathers the disruption figures whatever opt.Disruption
// says: whether they are compared depends on the scenarios the live
// rows name, known only once they are all read.
func NewTwinSide(opt CompareOptions) *CompareSide {
	opt.AcrossRuntimes, opt.Disruption = true, true
	return NewCompareSide(opt)
}

// Twin compares the simulated side of a scenario with its live side,
// both started by NewTwinSide, as CompareSides compares two sides. The
// disruption figures are compared when disruption says so of the
// scenarios the live rows name (in the order the rows first name them):
// an incident scenario's signature is written in them.
func Twin(sim, live *CompareSide, disruption func(liveScenarios []string) bool) Comparison {
	var names []string
	for _, k := range live.keys {
		if !slices.Contains(names, k.scenario) {
			names = append(names, k.scenario)
		}
	}
	d := disruption(names)
	sim.opt.Disruption, live.opt.Disruption = d, d
	return CompareSides(sim, live)
}

// TwinLabel says what the verdict of a twin comparison's change means,
// the way its figure went live: a regression is a larger median, but a
// smaller share of safe, live or correct trials.
func TwinLabel(ch *Change) string {
	higher, lower := "live higher", "live lower"
	if ch.Kind == KindShare {
		higher, lower = lower, higher
	}
	switch v := ch.Verdict; v {
	case Regression:
		return higher
	case Improvement:
		return lower
	case OnlyInBase:
		return "only simulated"
	case OnlyInNew:
		return "only live"
	case NoChange:
		return "within noise"
	}
	return string(ch.Verdict)
}

// Exceeds reports whether a change exceeds the noise: significant, and
// beyond the threshold for a median.
func (c *Change) Exceeds() bool { return c.Verdict == Regression || c.Verdict == Improvement }

// TwinColumns is the header of twin.csv.
var TwinColumns = []string{"algorithm", "variant", "scenario", "nodes", "metric", "kind",
	"sim_n", "live_n", "sim", "live", "difference", "p", "q", "exceeds_noise", "verdict", "reason"}

// WriteTwinCSV writes one line per group and metric: both sides (a median,
// or a share of trials), the difference (relative for a median, in points
// of share for a share), the p- and q-values and whether it exceeds the
// noise.
func WriteTwinCSV(out io.Writer, c Comparison) error {
	w := csv.NewWriter(out)
	w.Write(TwinColumns)
	for i := range c.Changes {
		ch := &c.Changes[i]
		sim, live := ch.BaseMedian, ch.NewMedian
		if ch.Kind == KindShare {
			sim, live = ch.BaseShare, ch.NewShare
		}
		diff := ""
		if ch.Delta.IsSet() && !math.IsInf(ch.Delta.Get(), 0) {
			diff = FormatFloat(ch.Delta.Get())
		} else if ch.Delta.IsSet() {
			diff = strconv.FormatFloat(ch.Delta.Get(), 'f', -1, 64)
		}
		w.Write([]string{ch.Algorithm, ch.Variant, ch.Scenario, strconv.Itoa(ch.Nodes), ch.Metric, ch.Kind,
			strconv.Itoa(ch.BaseN), strconv.Itoa(ch.NewN), sim.String(), live.String(), diff, ch.P.String(), ch.Q.String(),
			strconv.FormatBool(ch.Exceeds()), TwinLabel(ch), ch.Reason})
	}
	w.Flush()
	return w.Error()
}

// WriteTwinText writes what people read: one line per group and metric
// whose difference exceeds the noise or cannot be decided, then a count.
func WriteTwinText(out io.Writer, c Comparison) error {
	var b strings.Builder
	exceed := 0
	for i := range c.Changes {
		ch := &c.Changes[i]
		if ch.Exceeds() {
			exceed++
		}
		if ch.Verdict == NoChange {
			continue
		}
		fmt.Fprintf(&b, "%-14s  %s/%s %s n=%d %s: sim %s", strings.ToUpper(TwinLabel(ch)),
			ch.Algorithm, ch.Variant, ch.Scenario, ch.Nodes, ch.Metric, strings.Replace(ch.Figures(), " → ", ", live ", 1))
		if ch.P.IsSet() {
			fmt.Fprintf(&b, ", p=%s", fmtP(ch.P.Get()))
		}
		if ch.Q.IsSet() {
			fmt.Fprintf(&b, ", q=%s", fmtP(ch.Q.Get()))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "twin: %d groups, %d tests (%d simulated rows, %d live rows; shares: Fisher exact; medians: Mann–Whitney; two-sided; beyond the noise: Benjamini–Hochberg q ≤ α=%s over %s that could reach it, threshold ±%s on medians): %d exceed the noise\n",
		c.Groups, len(c.Changes), c.BaseRows, c.NewRows, strconv.FormatFloat(c.Alpha, 'f', -1, 64), familyText(c.Tests),
		strings.TrimPrefix(fmtPercent(c.Threshold), "+"), exceed)
	_, err := io.WriteString(out, b.String())
	return err
}

// WriteTwinHTML writes a self-contained page: every group and metric, sim
// beside live, the difference, and whether it exceeds the noise.
func WriteTwinHTML(out io.Writer, c Comparison, scenario string) error {
	p := newPage("electbench twin " + scenario)
	p.para("meta", txt("Scenario "), code(scenario), txtf(" on the simulator (%d rows) and live (%d rows), the same seeds · shares of safe, live and correct trials: two-sided Fisher exact · medians: two-sided Mann–Whitney U · beyond the noise: Benjamini–Hochberg q ≤ α=%s over %s that could reach it · threshold ±%s on the median · a median verdict needs at least %d trials per side",
		c.BaseRows, c.NewRows, fixedText(c.Alpha, 4), familyText(c.Tests), strings.TrimPrefix(fmtPercent(c.Threshold), "+"), c.MinSamples))
	head := []string{"", "algorithm", "variant", "scenario", "nodes", "metric", "sim n", "live n",
		"sim", "live", "difference", "", "p", "q", "reason"}
	rows := changeRows(c, TwinLabel, false)
	p.tableID("twin", "sortable", head, rows)
	p.note("Compare's method, with the simulator as BASE and live as NEW (a regression there is a live median higher here, or a live share of safe, live or correct trials lower): " + CompareMethod + ".")
	return p.write(out)
}
