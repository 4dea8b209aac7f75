package reports

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Raft's Figure 16 (Ongaro & Ousterhout 2014, §9.3) as the built-in
// scenario raft-figure16 runs it: one scenario per election-timeout range,
// named raft-figure16-LO-HI (milliseconds). writeFigure16 draws the paper's
// two panels from their rows and sets the published numbers beside ours.

// figure16Name is a scenario of raft-figure16: its timeout range in ms.
var figure16Name = regexp.MustCompile(`^raft-figure16-(\d+)-(\d+)$`)

// figure16Range is one election-timeout range of the figure.
type figure16Range struct{ lo, hi int }

func (r figure16Range) String() string {
	return strconv.Itoa(r.lo) + "–" + strconv.Itoa(r.hi) + " ms"
}

// The two panels: the top varies the randomness above 150 ms, the bottom
// scales the whole range down; 150–300 belongs to both.
func (r figure16Range) top() bool    { return r.lo == 150 }
func (r figure16Range) bottom() bool { return r.hi == 2*r.lo }

// figure16Paper is what the paper publishes for a range: the figures its
// text states (the rest of the figure is curves, not numbers).
type figure16Paper struct {
	stat  string  // median, mean or worst
	ms    float64 // its value, milliseconds
	above bool    // a lower bound ("consistently > 10 s")
}

var figure16Published = map[figure16Range][]figure16Paper{
	{150, 150}: {{"median", 10000, true}},
	{150, 155}: {{"median", 287, false}},
	{150, 200}: {{"worst", 513, false}},
	{12, 24}:   {{"mean", 35, false}, {"worst", 152, false}},
}

// downtime is one configuration's downtimes in milliseconds over all its
// trials: those that never had a leader known by a majority again count as
// +Inf (they sort last, so a median or p99 they reach is ∞).
type downtime struct {
	label string
	rng   figure16Range
	ms    []float64 // sorted, +Inf for the unfinished
}

func (d downtime) quantile(p float64) float64 {
	return d.ms[max(0, int(math.Ceil(p*float64(len(d.ms))))-1)]
}

func (d downtime) median() float64 {
	n := len(d.ms)
	if n%2 == 1 {
		return d.ms[n/2]
	}
	return (d.ms[n/2-1] + d.ms[n/2]) / 2
}

func (d downtime) mean() float64 {
	s := 0.0
	for _, v := range d.ms {
		s += v
	}
	return s / float64(len(d.ms))
}

func (d downtime) unfinished() int {
	n := 0
	for _, v := range d.ms {
		if math.IsInf(v, 1) {
			n++
		}
	}
	return n
}

func (d downtime) stat(name string) float64 {
	switch name {
	case "median":
		return d.median()
	case "mean":
		return d.mean()
	}
	return d.ms[len(d.ms)-1]
}

// figure16Downtimes collects the groups of raft-figure16's scenarios whose
// leader crashed, in the order of the groups.
func figure16Downtimes(groups []*reportGroup) []downtime {
	var out []downtime
	for _, g := range groups {
		m := figure16Name.FindStringSubmatch(g.Scenario)
		if m == nil {
			continue
		}
		lo, _ := strconv.Atoi(m[1])
		hi, _ := strconv.Atoi(m[2])
		d := downtime{label: algoLabel(g.Algorithm, g.Variant), rng: figure16Range{lo, hi}}
		if g.Runtime != "sim" {
			d.label += " (" + g.Runtime + ")"
		}
		d.ms = slices.Clone(g.downtimeMs)
		if len(d.ms) > 0 {
			slices.Sort(d.ms)
			out = append(out, d)
		}
	}
	return out
}

// writeFigure16 draws Raft's Figure 16 when the rows hold raft-figure16's
// scenarios: per algorithm, the two panels as empirical CDFs of downtime
// on a log time axis, one line per timeout range, and a table of median,
// mean, p99 and worst beside the paper's published numbers with the
// relative difference. A trial with no leader known by a majority by its
// deadline counts as never (∞): its line stops short of 100%.
func writeFigure16(p *page, groups []*reportGroup) error {
	ds := figure16Downtimes(groups)
	if len(ds) == 0 {
		return nil
	}
	var algos []string
	for _, d := range ds {
		if !slices.Contains(algos, d.label) {
			algos = append(algos, d.label)
		}
	}
	type panel struct {
		svg    string
		labels []string
	}
	var panels []panel
	for _, a := range algos {
		for _, half := range []struct {
			name string
			in   func(figure16Range) bool
		}{{"randomness above 150 ms", figure16Range.top}, {"scaled ranges", figure16Range.bottom}} {
			var series []cdfSeries
			var labels []string
			for _, d := range ds {
				if d.label != a || !half.in(d.rng) {
					continue
				}
				finished := d.ms[:len(d.ms)-d.unfinished()]
				series = append(series, cdfSeries{label: d.rng.String(), values: finished, of: len(d.ms)})
				labels = append(labels, d.rng.String())
			}
			svg, err := cdfChart(a+": "+half.name, "downtime, ms after the crash (log scale)", series, true)
			if err != nil {
				return err
			}
			if svg != "" {
				panels = append(panels, panel{svg, labels})
			}
		}
	}
	var rows [][]cell
	for _, d := range ds {
		row := []cell{textCell(d.label), textCell(d.rng.String()), intCell(len(d.ms)), intCell(d.unfinished())}
		for _, v := range []float64{d.median(), d.mean(), d.quantile(0.99), d.ms[len(d.ms)-1]} {
			row = append(row, msCell(v))
		}
		var paper, diff []string
		for _, pub := range figure16Published[d.rng] {
			ours := d.stat(pub.stat)
			if pub.above {
				paper = append(paper, fmt.Sprintf("%s > %s", pub.stat, fixedText(pub.ms, 0)))
			} else {
				paper = append(paper, fmt.Sprintf("%s %s", pub.stat, fixedText(pub.ms, 0)))
			}
			diff = append(diff, relDiff(ours, pub.ms))
		}
		row = append(row, textCell(strings.Join(paper, "; ")), textCell(strings.Join(diff, "; ")))
		rows = append(rows, row)
	}
	p.section("figure16", func() {
		p.h2("", txt("Raft's Figure 16"))
		p.note("Time to detect and replace a crashed leader (Ongaro & Ousterhout 2014, §9.3, Figure 16), as the built-in " +
			"scenario raft-figure16 runs it: from the crash until a leader is known by a majority (failover_s). Cumulative " +
			"share of all trials against milliseconds on a log axis, one line per election-timeout range; a trial with no " +
			"such leader by its deadline never reaches the line, which stops short of 100%. docs/figure16.md says how the " +
			"setup follows the paper and where it cannot.")
		for _, pn := range panels {
			p.figure(pn.svg)
			p.legend(pn.labels)
		}
		p.table("sortable", []string{"algorithm", "election timeout", "trials", "no leader by the deadline",
			"median ms", "mean ms", "p99 ms", "worst ms", "the paper, ms", "difference"}, rows)
	})
	return nil
}

// msCell is a downtime in milliseconds; ∞ for one that never ended.
func msCell(v float64) cell {
	if math.IsInf(v, 1) {
		return cell{text: "∞", num: true, v: math.MaxFloat64, hasV: true}
	}
	return floatCell(v, 1)
}

// relDiff is (ours − paper) / paper as a signed percentage.
func relDiff(ours, paper float64) string {
	if math.IsInf(ours, 1) {
		return "+∞"
	}
	return fmt.Sprintf("%+.1f%%", 100*(ours-paper)/paper)
}
