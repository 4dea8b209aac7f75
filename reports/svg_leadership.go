package reports

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// The leadership time-line of an incident: one band per process, filled
// while it believed it led, labelled with its term. Like the message
// diagram it is drawn by hand, and depends only on its input.

// leadBand is one span of a process's leadership in one term: from its
// first message only a leader sends (HTMLOptions.Leads) to its last, in
// nanoseconds of the trial's time.
type leadBand struct {
	p          int
	term       int64
	from, last int64
}

// leadBands reads the spans of leadership off a trial's leader messages
// and crashes (in trace order). A span ends at a crash, at a message of
// another term, or at a silence longer than three of the process's usual
// intervals between them (a paused or deposed leader that leads again
// later starts a new span).
func leadBands(evs []TraceEvent) []leadBand {
	gap := leadGap(evs)
	open := map[int]*leadBand{}
	var out []leadBand
	closeBand := func(p int) {
		if b := open[p]; b != nil {
			out = append(out, *b)
			delete(open, p)
		}
	}
	for _, ev := range evs {
		switch ev.Ev {
		case "crash":
			closeBand(ev.P)
		case "send":
			b := open[ev.From]
			if b != nil && b.term == ev.A && ev.T-b.last <= gap {
				b.last = ev.T
				continue
			}
			closeBand(ev.From)
			open[ev.From] = &leadBand{p: ev.From, term: ev.A, from: ev.T, last: ev.T}
		}
	}
	ps := make([]int, 0, len(open))
	for p := range open {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	for _, p := range ps {
		closeBand(p)
	}
	slices.SortStableFunc(out, func(a, b leadBand) int { return cmp.Compare(a.from, b.from) })
	return out
}

// leadGap is three times the median interval between one process's
// successive leader messages of one term (a heartbeat), the longest
// silence a span bridges; unbounded when no interval is known.
func leadGap(evs []TraceEvent) int64 {
	last := map[int]TraceEvent{}
	var gaps []float64
	for _, ev := range evs {
		if ev.Ev != "send" {
			continue
		}
		if prev, ok := last[ev.From]; ok && prev.A == ev.A && ev.T > prev.T {
			gaps = append(gaps, float64(ev.T-prev.T))
		}
		last[ev.From] = ev
	}
	s := describe(gaps)
	if !s.Median.IsSet() {
		return math.MaxInt64
	}
	return int64(3 * s.Median.Get())
}

const (
	leadLeft  = 60.0  // px for the lane labels
	leadWidth = 900.0 // px of time axis
	leadTop   = 26.0  // px for the time axis
	leadLane  = 22.0  // px per process
)

// leadershipTimeline draws the bands of a trial of nodes processes ending
// at end (nanoseconds): one lane per process, a band per span coloured and
// labelled by its term, fault windows (in T, which needs tNs) shaded.
func leadershipTimeline(title string, nodes int, bands []leadBand, end int64, tNs float64, faults []FaultWindow) string {
	end = max(end, 1)
	for _, b := range bands {
		nodes = max(nodes, b.p+1)
	}
	x := func(t int64) float64 { return leadLeft + float64(t)/float64(end)*leadWidth }
	h := leadTop + float64(nodes)*leadLane + 8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="lamport leadership" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-label="%s">`+"\n",
		num(leadLeft+leadWidth+20), num(h), num(leadLeft+leadWidth+20), num(h), html.EscapeString(title))
	if tNs > 0 {
		// Faults as a strip under the axis: a fault that lasts the whole
		// trial would otherwise tint every lane.
		for _, f := range faults {
			from, until := math.Max(0, f.From*tNs), math.Min(f.Until*tNs, float64(end))
			if until <= from {
				continue
			}
			fmt.Fprintf(&b, `<rect class="fault" x="%s" y="%s" width="%s" height="5" fill="#d55e00" fill-opacity="0.5"><title>%s</title></rect>`+"\n",
				num(x(int64(from))), num(leadTop-3), num(math.Max(1, x(int64(until))-x(int64(from)))), html.EscapeString(faultTitle(f)))
		}
	}
	leadAxis(&b, end, tNs, h, x)
	for p := range nodes {
		y := leadTop + float64(p)*leadLane
		fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="11" text-anchor="end">p%d</text><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd"/>`+"\n",
			num(leadLeft-8), num(y+leadLane/2+4), p, num(leadLeft), num(y+leadLane/2), num(leadLeft+leadWidth), num(y+leadLane/2))
	}
	for _, band := range bands {
		x0, x1 := x(band.from), math.Max(x(band.last), x(band.from)+2)
		y := leadTop + float64(band.p)*leadLane + 3
		// The palette without its black, under black labels.
		colors := palette[:len(palette)-1]
		c := colors[int(band.term%int64(len(colors))+int64(len(colors)))%len(colors)]
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="#%02x%02x%02x" fill-opacity="0.6"><title>p%d led in term %d from %s to %s</title></rect>`+"\n",
			num(x0), num(y), num(x1-x0), num(leadLane-6), c.R, c.G, c.B, band.p, band.term,
			formatTraceTime(band.from, tNs)[2:], formatTraceTime(band.last, tNs)[2:])
		if x1-x0 >= 34 {
			fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="10" fill="#000">term %d</text>`+"\n", num(x0+3), num(y+leadLane-10), band.term)
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// leadAxis draws the time axis along the top, in T when tNs is known.
func leadAxis(b *strings.Builder, end int64, tNs, h float64, x func(int64) float64) {
	unit, scale := "", 1.0
	if tNs > 0 {
		unit, scale = "T", tNs
	}
	step := niceStep(float64(end) / scale / 10)
	for v := 0.0; v <= float64(end)/scale*(1+1e-9); v += step {
		t := int64(math.Round(v * scale))
		label := fixedText(v, max(0, int(-math.Floor(math.Log10(step)))+1)) + unit
		if unit == "" {
			label = formatTraceTime(t, 0)[2:]
		}
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eee"/><text x="%s" y="%s" font-size="10" text-anchor="middle">%s</text>`+"\n",
			num(x(t)), num(leadTop+2), num(x(t)), num(h-8), num(x(t)), num(leadTop-8), label)
	}
}
