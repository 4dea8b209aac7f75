package reports

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The message-sequence (Lamport) diagram is written by hand rather than with
// gonum/plot: it is a diagram, not a chart — one lane per process, one arrow
// per message from its send to its delivery — and each arrow carries its own
// tooltip. Like the charts its output depends only on its input.

// Diagram limits: ALGORITHMS.md-sized runs are drawn, larger ones are not.
const (
	DiagramMaxNodes  = 16
	DiagramMaxEvents = 10000
)

const (
	lamportLane   = 56.0   // px between process lanes
	lamportLeft   = 64.0   // px for the time axis
	lamportTop    = 58.0   // px for the legend and lane labels
	lamportBottom = 16.0   // px below the last event
	lamportMinH   = 160.0  // px of time axis at least
	lamportMaxH   = 3000.0 // px of time axis at most
	lamportStep   = 18.0   // px per distinct instant, before the limits
)

// lamportDiagram draws one trial's trace as a message-sequence diagram: time
// runs down, each process has a lane, each message is an arrow from sender
// at its send time to receiver at its delivery time, coloured by kind; a
// message dropped at a crashed receiver ends in a red cross there, one
// never delivered (the trace ends first) in a cross half way. A crashed
// process's lane is greyed from its crash on. Initiations are triangles,
// decisions filled dots, timer expirations hollow squares, suspicions
// orange ticks. Fault
// windows (in T, which needs tNs, T in nanoseconds) shade the time they
// cover. id prefixes the element ids so several diagrams share a page.
func lamportDiagram(id string, tr *TraceTrial, tNs float64, faults []FaultWindow, maint func(string) bool) string {
	nodes := tr.Nodes
	for _, ev := range tr.Events {
		nodes = max(nodes, ev.P+1, ev.From+1, ev.To+1)
	}
	var minT int64
	if tr.Window && len(tr.Events) > 0 {
		minT = tr.Events[0].T
	}
	// cls marks maintenance messages (heartbeats, pings): hidden until the
	// reader asks for them (the page's "show maintenance" switch).
	cls := func(kind string) string {
		if maint != nil && maint(kind) {
			return ` class="maint"`
		}
		return ""
	}
	var maxT int64 = minT + 1
	instants := map[int64]bool{}
	kinds := []string{}
	sends := map[int64]*TraceEvent{}
	delivered := map[int64]bool{}
	for i := range tr.Events {
		ev := &tr.Events[i]
		maxT = max(maxT, ev.T)
		instants[ev.T] = true
		if ev.Kind != "" && !slices.Contains(kinds, ev.Kind) {
			kinds = append(kinds, ev.Kind)
		}
		switch ev.Ev {
		case "send":
			sends[ev.ID] = ev
		case "recv", "drop":
			delivered[ev.ID] = true
		}
	}
	slices.Sort(kinds)
	color := map[string]string{}
	for i, k := range kinds {
		c := palette[i%len(palette)]
		color[k] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	h := math.Min(lamportMaxH, math.Max(lamportMinH, float64(len(instants))*lamportStep))
	width := lamportLeft + float64(nodes)*lamportLane + 20
	height := lamportTop + h + lamportBottom
	x := func(p int) float64 { return lamportLeft + (float64(p)+0.5)*lamportLane }
	y := func(t int64) float64 { return lamportTop + float64(t-minT)/float64(maxT-minT)*h }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="lamport" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-label="message sequence diagram of %s trial %d">`+"\n",
		num(width), num(height), num(width), num(height), html.EscapeString(tr.Algorithm), tr.Trial)
	b.WriteString("<defs>")
	for i, k := range kinds {
		fmt.Fprintf(&b, `<marker id="%s-k%d" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="%s"/></marker>`, id, i, color[k])
	}
	b.WriteString("</defs>\n")

	// Legend: one swatch per kind.
	lx := lamportLeft
	for _, k := range kinds {
		fmt.Fprintf(&b, `<g%s><rect x="%s" y="8" width="14" height="4" fill="%s"/><text x="%s" y="14" font-size="11">%s</text></g>`+"\n",
			cls(k), num(lx), color[k], num(lx+18), html.EscapeString(k))
		lx += 26 + 7*float64(len(k))
	}

	// Fault windows behind everything else.
	if tNs > 0 {
		for _, f := range faults {
			y0 := y(max(int64(f.From*tNs), minT))
			y1 := y(int64(math.Min(f.Until*tNs, float64(maxT))))
			if f.From*tNs > float64(maxT) || y1 <= y0 {
				continue
			}
			fmt.Fprintf(&b, `<rect class="fault" x="%s" y="%s" width="%s" height="%s" fill="#d55e00" fill-opacity="0.15"><title>%s</title></rect>`+"\n",
				num(lamportLeft), num(y0), num(float64(nodes)*lamportLane), num(y1-y0), html.EscapeString(faultTitle(f)))
		}
	}

	// Time axis.
	unit, scale := "", 1.0
	if tNs > 0 {
		unit, scale = "T", tNs
	}
	span := float64(maxT-minT) / scale
	step := niceStep(span / 12)
	first := math.Ceil(float64(minT)/scale/step) * step
	for i := 0; first+float64(i)*step <= float64(maxT)/scale*(1+1e-9); i++ {
		v := first + float64(i)*step
		yy := y(int64(math.Round(v * scale)))
		label := fixedText(v, max(0, int(-math.Floor(math.Log10(step)))+1)) + unit
		if unit == "" {
			label = formatTraceTime(int64(v), 0)[2:]
		}
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eee"/><text x="%s" y="%s" font-size="10" text-anchor="end">%s</text>`+"\n",
			num(lamportLeft), num(yy), num(width-20), num(yy), num(lamportLeft-6), num(yy+3), label)
	}

	// Lanes.
	for p := range nodes {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#999"/><text x="%s" y="%s" font-size="11" text-anchor="middle">p%d<title>process at position %d</title></text>`+"\n",
			num(x(p)), num(lamportTop-6), num(x(p)), num(lamportTop+h), num(x(p)), num(lamportTop-12), p, p)
	}

	// Crashed lanes.
	for _, ev := range tr.Events {
		if ev.Ev == "crash" {
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="8" height="%s" fill="#ccc"><title>p%d crashed at %s</title></rect>`+"\n",
				num(x(ev.P)-4), num(y(ev.T)), num(math.Max(1, lamportTop+h-y(ev.T))), ev.P, formatTraceTime(ev.T, tNs)[2:])
		}
	}

	// Messages, then the events on the lanes above them.
	for i := range tr.Events {
		ev := &tr.Events[i]
		switch ev.Ev {
		case "drop":
			s := sends[ev.ID]
			sendT := ev.T
			if s != nil {
				sendT = s.T
			}
			x2, y2 := x(ev.To), y(ev.T)
			dropped := "dropped"
			if cls(ev.Kind) != "" {
				dropped += " maint"
			}
			fmt.Fprintf(&b, `<g class="`+dropped+`"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.3" stroke-dasharray="4 3"/><path d="M%s,%sl8,8m0,-8l-8,8" stroke="#c00" stroke-width="1.5"/><title>#%d %s p%d→p%d, sent %s, dropped at the crashed receiver %s</title></g>`+"\n",
				num(x(ev.From)), num(y(sendT)), num(x2), num(y2), color[ev.Kind], num(x2-4), num(y2-4),
				ev.ID, html.EscapeString(messageLabel(*ev)), ev.From, ev.To,
				formatTraceTime(sendT, tNs)[2:], formatTraceTime(ev.T, tNs)[2:])
		case "recv":
			s := sends[ev.ID]
			sendT := ev.T
			if s != nil {
				sendT = s.T
			}
			ki := slices.Index(kinds, ev.Kind)
			fmt.Fprintf(&b, `<line%s x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.3" marker-end="url(#%s-k%d)"><title>#%d %s p%d→p%d, sent %s, delivered %s</title></line>`+"\n",
				cls(ev.Kind), num(x(ev.From)), num(y(sendT)), num(x(ev.To)), num(y(ev.T)), color[ev.Kind], id, ki,
				ev.ID, html.EscapeString(messageLabel(*ev)), ev.From, ev.To,
				formatTraceTime(sendT, tNs)[2:], formatTraceTime(ev.T, tNs)[2:])
		case "send":
			if delivered[ev.ID] || tr.Truncated || tr.Window {
				continue
			}
			x1, y1 := x(ev.From), y(ev.T)
			x2, y2 := (x1+x(ev.To))/2, y1+lamportStep
			fmt.Fprintf(&b, `<g class="lost"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-dasharray="4 3"/><path d="M%s,%sl6,6m0,-6l-6,6" stroke="#c00"/><title>#%d %s p%d→p%d sent %s, never delivered</title></g>`+"\n",
				num(x1), num(y1), num(x2), num(y2), color[ev.Kind], num(x2-3), num(y2-3),
				ev.ID, html.EscapeString(messageLabel(*ev)), ev.From, ev.To, formatTraceTime(ev.T, tNs)[2:])
		}
	}
	for i := range tr.Events {
		ev := &tr.Events[i]
		px, py := x(ev.P), y(ev.T)
		at := formatTraceTime(ev.T, tNs)[2:]
		switch ev.Ev {
		case "initiate":
			fmt.Fprintf(&b, `<path d="M%s,%sl5,8h-10z" fill="#333"><title>p%d initiates at %s</title></path>`+"\n",
				num(px), num(py-4), ev.P, at)
		case "decide":
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3.5" fill="#000"><title>p%d decides leader %s at %s</title></circle>`+"\n",
				num(px), num(py), ev.P, html.EscapeString(ev.Leader), at)
		case "timer":
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="7" height="7" fill="#fff" stroke="#000"><title>p%d timer %s fires at %s</title></rect>`+"\n",
				num(px-3.5), num(py-3.5), ev.P, html.EscapeString(ev.Timer), at)
		case "suspect":
			fmt.Fprintf(&b, `<path d="M%s,%sh10" stroke="#e69f00" stroke-width="3"><title>p%d suspects p%d at %s</title></path>`+"\n",
				num(px-5), num(py), ev.P, ev.Q, at)
		case "crash":
			fmt.Fprintf(&b, `<path d="M%s,%sl10,10m0,-10l-10,10" stroke="#c00" stroke-width="2"><title>p%d crashes at %s</title></path>`+"\n",
				num(px-5), num(py-5), ev.P, at)
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func faultTitle(f FaultWindow) string {
	if math.IsInf(f.Until, 1) {
		return fmt.Sprintf("%s from %sT to the end", f.Label, strconv.FormatFloat(f.From, 'f', -1, 64))
	}
	return fmt.Sprintf("%s from %sT to %sT", f.Label, strconv.FormatFloat(f.From, 'f', -1, 64),
		strconv.FormatFloat(f.Until, 'f', -1, 64))
}

// niceStep rounds v up to 1, 2 or 5 times a power of ten.
func niceStep(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// num writes an SVG coordinate with one decimal at most.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
