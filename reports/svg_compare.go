package reports

import (
	"fmt"
	"html"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Components that put algorithms side by side: a trend of one figure
// against N for every series (byNChart), the distributions at one N
// (sideBySideChart), and empirical CDFs on a time axis (cdfChart). Their
// legends are HTML beside the chart (seriesLegend), never drawn over data.

// glyphs mark the series of a trend chart, with paletteColor(i).
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// byNChart draws every series' points against N on a log N axis (the
// figure on a log axis when logY), series i in paletteColor(i) with
// glyphs[i%8]; no legend is drawn (see seriesLegend). Nothing is drawn
// (""), when the series hold fewer than two points or one size in all.
func byNChart(title, yLabel string, series []overviewSeries, logY bool) (string, error) {
	p := newChart(title, "N (nodes)", yLabel)
	xb, yb := newBounds(), newBounds()
	ylo, yhi := math.Inf(1), math.Inf(-1)
	total := 0
	for i, s := range series {
		var pts xys
		for _, pt := range s.pts {
			if pt.X > 0 && !math.IsNaN(pt.Y) && !math.IsInf(pt.Y, 0) && (!logY || pt.Y > 0) {
				pts = append(pts, pt)
				xb.add(pt.X)
				yb.add(pt.Y)
				ylo, yhi = math.Min(ylo, pt.Y), math.Max(yhi, pt.Y)
			}
		}
		if len(pts) == 0 {
			continue
		}
		total += len(pts)
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return "", err
		}
		line.Color, points.Color = paletteColor(i), paletteColor(i)
		points.Shape, points.Radius = glyphs[i%len(glyphs)], vg.Points(2.5)
		p.Add(line, points)
	}
	if total < 2 || !xb.ok() || xb.lo == xb.hi {
		return "", nil // one size: the side-by-side view says more
	}
	setLog(&p.X, xb.lo, xb.hi)
	if logY {
		setLog(&p.Y, yb.lo, yb.hi)
	} else {
		setLinear(&p.Y, math.Min(0, ylo), yhi)
	}
	return renderChart(p, title)
}

// legendSwatch is the line and glyph of series i of a chart (paletteColor(i),
// glyphs[i%8]), for its legend beside the chart (page.legend).
func legendSwatch(i int) string {
	c := palette[i%len(palette)]
	return fmt.Sprintf(`<svg width="22" height="12" aria-hidden="true"><line x1="0" y1="6" x2="22" y2="6" stroke="#%02x%02x%02x" stroke-width="1.5"/>%s</svg>`,
		c.R, c.G, c.B, glyphSVG(i, c))
}

// glyphSVG draws glyphs[i%8] in c at (11, 6), as the chart does.
func glyphSVG(i int, c color.RGBA) string {
	col := fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	switch i % len(glyphs) {
	case 0:
		return `<circle cx="11" cy="6" r="3" fill="` + col + `"/>`
	case 1:
		return `<rect x="8" y="3" width="6" height="6" fill="none" stroke="` + col + `"/>`
	case 2:
		return `<polygon points="11,2.5 14.5,9 7.5,9" fill="none" stroke="` + col + `"/>`
	case 3:
		return `<polygon points="11,2.5 14.5,9 7.5,9" fill="` + col + `"/>`
	case 4:
		return `<circle cx="11" cy="6" r="3" fill="none" stroke="` + col + `"/>`
	case 5:
		return `<rect x="8" y="3" width="6" height="6" fill="` + col + `"/>`
	case 6:
		return `<path d="M8,3L14,9M14,3L8,9" stroke="` + col + `"/>`
	}
	return `<path d="M11,2.5V9.5M7.5,6H14.5" stroke="` + col + `"/>`
}

// namedSample is one series' values at one size, for sideBySideChart.
type namedSample struct {
	name   string
	values []float64
}

// sideBySideChart draws each sample's distribution as a horizontal box
// (quartiles, whiskers to 1.5 IQR, outliers as points), one row per name,
// on a log axis when logX. Samples without a value are left out; nothing
// is drawn when fewer than two values remain in all.
func sideBySideChart(title, xLabel string, samples []namedSample, logX bool) (string, error) {
	p := newChart(title, xLabel, "")
	xb := newBounds()
	xlo, xhi := math.Inf(1), math.Inf(-1)
	var names []string
	var boxes []*plotter.BoxPlot
	total := 0
	for _, s := range samples {
		vs := drawable(s.values, logX)
		for _, v := range vs {
			xb.add(v)
			xlo, xhi = math.Min(xlo, v), math.Max(xhi, v)
		}
		if len(vs) == 0 {
			continue
		}
		total += len(vs)
		b, err := plotter.NewBoxPlot(vg.Points(10), float64(len(names)), vs)
		if err != nil {
			return "", err
		}
		b.Horizontal = true
		styleBox(b)
		boxes = append(boxes, b)
		names = append(names, s.name)
	}
	if total < 2 || xlo > xhi {
		return "", nil
	}
	for _, b := range boxes {
		p.Add(b)
	}
	p.NominalY(names...)
	if logX && xb.ok() {
		setLog(&p.X, xb.lo, xb.hi)
	} else {
		setLinear(&p.X, math.Min(0, xlo), xhi)
	}
	return renderChart(p, title)
}

// cdfSeries is one configuration's values for cdfChart. of, when above
// len(values), is the number of trials the shares are of: the others
// never reached a value (a leader never elected by the deadline), so the
// line stops short of 100%.
type cdfSeries struct {
	label  string
	values []float64
	of     int
}

// cdfChart draws each series' empirical CDF as a step line (the Raft
// paper's Figure 16 style): the share of trials at or below each value, in
// percent, on a linear axis or, with logX, a logarithmic one. Series i is
// paletteColor(i); no legend is drawn (see seriesLegend). Nothing is drawn
// unless some series has two values or more: a CDF of one value is a
// number, not a distribution.
func cdfChart(title, xLabel string, series []cdfSeries, logX bool) (string, error) {
	if !slices.ContainsFunc(series, func(s cdfSeries) bool { return len(s.values) > 1 }) {
		return "", nil
	}
	p := newChart(title, xLabel, "trials at or below (%)")
	lo, hi := math.Inf(1), math.Inf(-1)
	total := 0
	for i, s := range series {
		vs := drawable(s.values, logX)
		if len(vs) == 0 {
			continue
		}
		slices.Sort(vs)
		total += len(vs)
		lo, hi = math.Min(lo, vs[0]), math.Max(hi, vs[len(vs)-1])
		of := max(s.of, len(vs))
		// A step up at each value: (v, k/n) to (v, (k+1)/n).
		var pts xys
		prev := 0.0
		for k, v := range vs {
			pts = append(pts, plotter.XY{X: v, Y: prev})
			prev = 100 * float64(k+1) / float64(of)
			pts = append(pts, plotter.XY{X: v, Y: prev})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return "", err
		}
		l.Color, l.Width = paletteColor(i), vg.Points(1.5)
		p.Add(l)
	}
	if total < 2 {
		return "", nil
	}
	if logX {
		setLog(&p.X, lo, hi)
	} else {
		setLinear(&p.X, math.Min(0, lo), hi)
	}
	p.Y.Min, p.Y.Max = 0, 100
	return renderChart(p, title)
}

// faultTimeline draws a trial's fault windows as bars on a time axis in
// units of T, one row per fault, with the trial's turnaround marked when
// it is known (end, 0 if not): what was broken, and when, beside how long
// the election took. A window that never healed runs to the axis's end.
func faultTimeline(ws []FaultWindow, end float64) string {
	if len(ws) == 0 {
		return ""
	}
	hi := end
	for _, w := range ws {
		hi = math.Max(hi, w.From)
		if !math.IsInf(w.Until, 1) {
			hi = math.Max(hi, w.Until)
		}
	}
	if hi <= 0 {
		hi = 1
	}
	hi *= 1.1
	const left, right, row, top = 230.0, 20.0, 18.0, 8.0
	width := 720.0
	height := top + row*float64(len(ws)) + 30
	x := func(t float64) float64 { return left + math.Min(t, hi)/hi*(width-left-right) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="faults" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-label="fault windows on a time axis">`+"\n",
		num(width), num(height), num(width), num(height))
	axisY := top + row*float64(len(ws)) + 4
	step := niceStep(hi / 8)
	for v := 0.0; v <= hi*(1+1e-9); v += step {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eee"/><text x="%s" y="%s" font-size="10" text-anchor="middle">%sT</text>`+"\n",
			num(x(v)), num(top), num(x(v)), num(axisY), num(x(v)), num(axisY+12), strconv.FormatFloat(v, 'f', -1, 64))
	}
	for i, w := range ws {
		y := top + row*float64(i)
		until := w.Until
		if math.IsInf(until, 1) {
			until = hi
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="11" text-anchor="end">%s</text>`+"\n", num(left-6), num(y+12), html.EscapeString(shorten(w.Label, 36)))
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="12" fill="#d55e00" fill-opacity="0.45"><title>%s</title></rect>`+"\n",
			num(x(w.From)), num(y+2), num(math.Max(2, x(until)-x(w.From))), html.EscapeString(faultTitle(w)))
	}
	if end > 0 {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#0072b2" stroke-width="1.5" stroke-dasharray="4 2"><title>turnaround %sT</title></line>`+"\n",
			num(x(end)), num(top-4), num(x(end)), num(axisY), strconv.FormatFloat(end, 'f', -1, 64))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
