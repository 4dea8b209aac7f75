package reports

import (
	"fmt"
	"html"
	"maps"
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
// cover. ids, when known (one per process), label the lanes beside the
// positions. id prefixes the element ids so several diagrams share a page.
func lamportDiagram(id string, tr *TraceTrial, tNs float64, faults []FaultWindow, maint func(string) bool, ids []string) string {
	return markedDiagram(id, tr, tNs, faults, maint, ids, -1, "")
}

// markedDiagram is lamportDiagram with the event tr.Events[mark] ringed
// in red and labelled (a fault story's violating event); mark < 0 marks
// nothing.
func markedDiagram(id string, tr *TraceTrial, tNs float64, faults []FaultWindow, maint func(string) bool, ids []string, mark int, label string) string {
	d := newLamport(id, tr, tNs, maint)
	if len(ids) == tr.Nodes {
		d.ids = ids
	}
	if mark >= 0 {
		// A story's diagram is small (a shrunk run): make room for the
		// mark's label and the whole legend.
		legend := lamportLeft
		for _, k := range d.kinds {
			legend += 26 + 7*float64(len(k))
		}
		d.width = max(d.width+7*float64(len(label)), legend)
	}
	var b strings.Builder
	d.header(&b)
	d.faults(&b, faults) // behind everything else
	d.axis(&b)
	d.lanes(&b)
	d.messages(&b) // then the events on the lanes above them
	d.events(&b)
	if mark >= 0 && mark < len(tr.Events) {
		d.mark(&b, &tr.Events[mark], label)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// mark rings an event on its lane, with its label beside it.
func (d *lamport) mark(b *strings.Builder, ev *TraceEvent, label string) {
	px, py := d.x(ev.P), d.y(ev.T)
	fmt.Fprintf(b, `<g class="violation"><circle cx="%s" cy="%s" r="9" fill="none" stroke="#c00" stroke-width="2.5"/><text x="%s" y="%s" font-size="11" fill="#c00">%s</text><title>%s</title></g>`+"\n",
		num(px), num(py), num(px+12), num(py+4), html.EscapeString(label), html.EscapeString(label))
}

// lamport is one diagram's layout: its lanes, its time scale, and the
// message kinds with their colours.
type lamport struct {
	id         string
	tr         *TraceTrial
	tNs        float64
	maint      func(string) bool
	ids        []string // by position; nil: unknown
	nodes      int
	minT, maxT int64
	h, width   float64
	kinds      []string // sorted; a kind's index names its arrow marker
	color      map[string]string
	sends      map[int64]*TraceEvent
	delivered  map[int64]bool
}

func newLamport(id string, tr *TraceTrial, tNs float64, maint func(string) bool) *lamport {
	d := &lamport{id: id, tr: tr, tNs: tNs, maint: maint, nodes: tr.Nodes,
		color: map[string]string{}, sends: map[int64]*TraceEvent{}, delivered: map[int64]bool{}}
	for _, ev := range tr.Events {
		d.nodes = max(d.nodes, ev.P+1, ev.From+1, ev.To+1)
	}
	if tr.Window && len(tr.Events) > 0 {
		d.minT = tr.Events[0].T
	}
	d.maxT = max(d.minT, diagramEnd(tr.Events)) + 1
	instants := map[int64]bool{}
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.T < d.maxT {
			instants[ev.T] = true
		}
		if ev.Kind != "" && !slices.Contains(d.kinds, ev.Kind) {
			d.kinds = append(d.kinds, ev.Kind)
		}
		switch ev.Ev {
		case "send":
			d.sends[ev.ID] = ev
		case "recv", "drop":
			d.delivered[ev.ID] = true
		}
	}
	slices.Sort(d.kinds)
	for i, k := range d.kinds {
		c := palette[i%len(palette)]
		d.color[k] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	d.h = math.Min(lamportMaxH, math.Max(lamportMinH, float64(len(instants))*lamportStep))
	d.width = lamportLeft + float64(d.nodes)*lamportLane + 20
	return d
}

// diagramEnd is the time of a trial's last event other than a fault's:
// the diagram ends there. A live trial runs its fault schedule to its
// end, and a heal at 100T after an election over by 20T would otherwise
// stretch the axis to 100T, four fifths of it empty; the faults after it
// are named under the diagram (lateFaults).
func diagramEnd(evs []TraceEvent) int64 {
	var end int64
	seen := false
	for i := range evs {
		if evs[i].Ev != "fault" {
			end, seen = max(end, evs[i].T), true
		}
	}
	if !seen && len(evs) > 0 {
		return evs[len(evs)-1].T
	}
	return end
}

// lateFaults names the fault events after a trial's diagram ends
// (diagramEnd), with their times, for a line under it.
func lateFaults(evs []TraceEvent, tNs float64) []string {
	end := diagramEnd(evs)
	var out []string
	for _, ev := range evs {
		if ev.Ev == "fault" && ev.T > end {
			out = append(out, ForPeople(ev.What+" at "+formatTraceTime(ev.T, tNs)[2:]))
		}
	}
	return out
}

func (d *lamport) x(p int) float64 { return lamportLeft + (float64(p)+0.5)*lamportLane }
func (d *lamport) y(t int64) float64 {
	return lamportTop + float64(t-d.minT)/float64(d.maxT-d.minT)*d.h
}

// cls marks maintenance messages (heartbeats, pings): hidden until the
// reader asks for them (the page's "show maintenance" switch).
func (d *lamport) cls(kind string) string {
	if d.maint != nil && d.maint(kind) {
		return ` class="maint"`
	}
	return ""
}

// header opens the SVG with one arrow marker per kind, and the legend: one
// swatch per kind.
func (d *lamport) header(b *strings.Builder) {
	height := lamportTop + d.h + lamportBottom
	fmt.Fprintf(b, `<svg class="lamport" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-label="message sequence diagram of %s trial %d">`+"\n",
		num(d.width), num(height), num(d.width), num(height), html.EscapeString(d.tr.Algorithm), d.tr.Trial)
	b.WriteString("<defs>")
	for i, k := range d.kinds {
		fmt.Fprintf(b, `<marker id="%s-k%d" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="%s"/></marker>`, d.id, i, d.color[k])
	}
	b.WriteString("</defs>\n")
	lx := lamportLeft
	for _, k := range d.kinds {
		fmt.Fprintf(b, `<g%s><rect x="%s" y="8" width="14" height="4" fill="%s"/><text x="%s" y="14" font-size="11">%s</text></g>`+"\n",
			d.cls(k), num(lx), d.color[k], num(lx+18), html.EscapeString(k))
		lx += 26 + 7*float64(len(k))
	}
}

// faults shades the fault windows, which are in T: none without tNs.
func (d *lamport) faults(b *strings.Builder, faults []FaultWindow) {
	if d.tNs <= 0 {
		return
	}
	for _, f := range faults {
		y0 := d.y(max(int64(f.From*d.tNs), d.minT))
		y1 := d.y(int64(math.Min(f.Until*d.tNs, float64(d.maxT))))
		if f.From*d.tNs > float64(d.maxT) || y1 <= y0 {
			continue
		}
		fmt.Fprintf(b, `<rect class="fault" x="%s" y="%s" width="%s" height="%s" fill="#d55e00" fill-opacity="0.15"><title>%s</title></rect>`+"\n",
			num(lamportLeft), num(y0), num(float64(d.nodes)*lamportLane), num(y1-y0), html.EscapeString(faultTitle(f)))
	}
}

// axis draws the time axis, in T when tNs is known.
func (d *lamport) axis(b *strings.Builder) {
	unit, scale := "", 1.0
	if d.tNs > 0 {
		unit, scale = "T", d.tNs
	}
	span := float64(d.maxT-d.minT) / scale
	step := niceStep(span / 12)
	first := math.Ceil(float64(d.minT)/scale/step) * step
	for i := 0; first+float64(i)*step <= float64(d.maxT)/scale*(1+1e-9); i++ {
		v := first + float64(i)*step
		yy := d.y(int64(math.Round(v * scale)))
		label := fixedText(v, max(0, int(-math.Floor(math.Log10(step)))+1)) + unit
		if unit == "" {
			label = formatTraceTime(int64(v), 0)[2:]
		}
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eee"/><text x="%s" y="%s" font-size="10" text-anchor="end">%s</text>`+"\n",
			num(lamportLeft), num(yy), num(d.width-20), num(yy), num(lamportLeft-6), num(yy+3), label)
	}
}

// lanes draws one lane per process, greyed from a crash to its restart
// (or the end).
func (d *lamport) lanes(b *strings.Builder) {
	for p := range d.nodes {
		title, y := fmt.Sprintf("process at position %d", p), lamportTop-12
		if d.ids != nil {
			title, y = processName(p, d.ids), lamportTop-20 // the identity goes under the position
		}
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#999"/><text x="%s" y="%s" font-size="11" text-anchor="middle">p%d<title>%s</title></text>`+"\n",
			num(d.x(p)), num(lamportTop-6), num(d.x(p)), num(lamportTop+d.h), num(d.x(p)), num(y), p, html.EscapeString(title))
		if d.ids != nil {
			fmt.Fprintf(b, `<text x="%s" y="%s" font-size="9" fill="#555" text-anchor="middle">id %s</text>`+"\n",
				num(d.x(p)), num(lamportTop-9), html.EscapeString(ForPeople(d.ids[p])))
		}
	}
	down := map[int]int64{}
	grey := func(p int, from int64, bottom float64) {
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="8" height="%s" fill="#ccc"><title>p%d crashed at %s</title></rect>`+"\n",
			num(d.x(p)-4), num(d.y(from)), num(math.Max(1, bottom-d.y(from))), p, formatTraceTime(from, d.tNs)[2:])
	}
	for _, ev := range d.tr.Events {
		switch _, isDown := down[ev.P]; {
		case ev.Ev == "crash" && !isDown:
			down[ev.P] = ev.T
		case ev.Ev == "restart" && isDown:
			grey(ev.P, down[ev.P], d.y(ev.T))
			delete(down, ev.P)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(down)) {
		grey(p, down[p], lamportTop+d.h)
	}
}

// sentAt is when the message ev delivers or drops was sent: ev's own time
// when its send is outside the trace.
func (d *lamport) sentAt(ev *TraceEvent) int64 {
	if s := d.sends[ev.ID]; s != nil {
		return s.T
	}
	return ev.T
}

// messages draws an arrow per delivered message, a dashed line ending in a
// cross per dropped or lost one, each labelled with what it carries where
// the label has room (labels).
func (d *lamport) messages(b *strings.Builder) {
	tNs := d.tNs
	room := labels{}
	for i := range d.tr.Events {
		ev := &d.tr.Events[i]
		switch ev.Ev {
		case "drop":
			sendT := d.sentAt(ev)
			x2, y2 := d.x(ev.To), d.y(ev.T)
			dropped := "dropped"
			if d.cls(ev.Kind) != "" {
				dropped += " maint"
			}
			fmt.Fprintf(b, `<g class="`+dropped+`"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.3" stroke-dasharray="4 3"/><path d="M%s,%sl8,8m0,-8l-8,8" stroke="#c00" stroke-width="1.5"/><title>#%d %s p%d→p%d, sent %s, dropped at the crashed receiver %s</title></g>`+"\n",
				num(d.x(ev.From)), num(d.y(sendT)), num(x2), num(y2), d.color[ev.Kind], num(x2-4), num(y2-4),
				ev.ID, html.EscapeString(messageLabel(*ev)), ev.From, ev.To,
				formatTraceTime(sendT, tNs)[2:], formatTraceTime(ev.T, tNs)[2:])
			d.label(b, room, ev, d.x(ev.From), d.y(sendT), x2, y2)
		case "recv":
			sendT := d.sentAt(ev)
			ki := slices.Index(d.kinds, ev.Kind)
			fmt.Fprintf(b, `<line%s x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.3" marker-end="url(#%s-k%d)"><title>#%d %s p%d→p%d, sent %s, delivered %s</title></line>`+"\n",
				d.cls(ev.Kind), num(d.x(ev.From)), num(d.y(sendT)), num(d.x(ev.To)), num(d.y(ev.T)), d.color[ev.Kind], d.id, ki,
				ev.ID, html.EscapeString(messageLabel(*ev)), ev.From, ev.To,
				formatTraceTime(sendT, tNs)[2:], formatTraceTime(ev.T, tNs)[2:])
			d.label(b, room, ev, d.x(ev.From), d.y(sendT), d.x(ev.To), d.y(ev.T))
		case "send":
			if d.delivered[ev.ID] || d.tr.Truncated || d.tr.Window {
				continue
			}
			x1, y1 := d.x(ev.From), d.y(ev.T)
			x2, y2 := (x1+d.x(ev.To))/2, y1+lamportStep
			lost := "lost"
			if d.cls(ev.Kind) != "" {
				lost += " maint" // a lost heartbeat is a heartbeat: hidden with the others
			}
			fmt.Fprintf(b, `<g class="`+lost+`"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-dasharray="4 3"/><path d="M%s,%sl6,6m0,-6l-6,6" stroke="#c00"/><title>#%d %s p%d→p%d sent %s, never delivered</title></g>`+"\n",
				num(x1), num(y1), num(x2), num(y2), d.color[ev.Kind], num(x2-3), num(y2-3),
				ev.ID, html.EscapeString(messageLabel(*ev)), ev.From, ev.To, formatTraceTime(ev.T, tNs)[2:])
			d.label(b, room, ev, x1, y1, x2, y2)
		}
	}
}

// labels are the boxes of the arrow labels drawn so far, by band of
// lamportLabelH px down the diagram: a label that would overlap one is
// left out (its arrow's tooltip still says it all).
type labels map[int][][2]float64

const lamportLabelH = 11.0 // px of a label's line, and the bands' height

// label writes what message ev carries (arrowLabel) beside its arrow from
// (x1, y1) to (x2, y2), a third of the way along, unless that overlaps a
// label already drawn. Maintenance messages go unlabelled: hidden by
// default, their labels would hold the room of the election's.
func (d *lamport) label(b *strings.Builder, room labels, ev *TraceEvent, x1, y1, x2, y2 float64) {
	if d.cls(ev.Kind) != "" {
		return
	}
	text := arrowLabel(ev)
	w := 5.5*float64(len([]rune(text))) + 6 // and a gap to the next
	x, y := x1+(x2-x1)/3, y1+(y2-y1)/3-2
	band := int(math.Floor(y / lamportLabelH))
	for _, k := range []int{band - 1, band, band + 1} {
		for _, r := range room[k] {
			if x-w/2 < r[1] && r[0] < x+w/2 {
				return
			}
		}
	}
	room[band] = append(room[band], [2]float64{x - w/2, x + w/2})
	fmt.Fprintf(b, `<text class="label" x="%s" y="%s" font-size="9" fill="%s" stroke="#fff" stroke-width="3" paint-order="stroke" text-anchor="middle">%s</text>`+"\n",
		num(x), num(y), d.color[ev.Kind], html.EscapeString(text))
}

// arrowLabel is what a message carries, abbreviated to fit beside its
// arrow: its kind, and its rank or term with a long identity cut to its
// first 8 hex digits (ForPeople); the tooltip keeps every field.
func arrowLabel(ev *TraceEvent) string {
	switch {
	case ev.Rank != "":
		return ev.Kind + " " + ForPeople(ev.Rank)
	case ev.A != 0:
		return ev.Kind + " a=" + strconv.FormatInt(ev.A, 10)
	}
	return ev.Kind
}

// events draws what happens on a lane: initiations, decisions, timers,
// suspicions, crashes.
func (d *lamport) events(b *strings.Builder) {
	for i := range d.tr.Events {
		ev := &d.tr.Events[i]
		px, py := d.x(ev.P), d.y(ev.T)
		at := formatTraceTime(ev.T, d.tNs)[2:]
		switch ev.Ev {
		case "initiate":
			fmt.Fprintf(b, `<path d="M%s,%sl5,8h-10z" fill="#333"><title>p%d initiates at %s</title></path>`+"\n",
				num(px), num(py-4), ev.P, at)
		case "decide":
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3.5" fill="#000"><title>p%d decides leader %s at %s</title></circle>`+"\n",
				num(px), num(py), ev.P, html.EscapeString(ev.Leader), at)
		case "timer":
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="7" height="7" fill="#fff" stroke="#000"><title>p%d timer %s fires at %s</title></rect>`+"\n",
				num(px-3.5), num(py-3.5), ev.P, html.EscapeString(ev.Timer), at)
		case "suspect":
			fmt.Fprintf(b, `<path d="M%s,%sh10" stroke="#e69f00" stroke-width="3"><title>p%d suspects p%d at %s</title></path>`+"\n",
				num(px-5), num(py), ev.P, ev.Q, at)
		case "crash":
			fmt.Fprintf(b, `<path d="M%s,%sl10,10m0,-10l-10,10" stroke="#c00" stroke-width="2"><title>p%d crashes at %s</title></path>`+"\n",
				num(px-5), num(py-5), ev.P, at)
		}
	}
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
