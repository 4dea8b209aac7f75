package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Charts are drawn with gonum.org/v1/plot and its SVG backend (vgsvg): a
// well-kept plotting library with log scales, box plots and legends, which
// runs offline and gives byte-identical SVG for the same input (checked by
// TestChartsDeterministic and the golden files). Fonts are not embedded:
// the text is laid out with Liberation Sans metrics and the page's style
// sheet names metric-compatible fallbacks (Arial, Helvetica).

// chartW and chartH are the size of one chart.
var (
	chartW = vg.Points(440)
	chartH = vg.Points(300)
)

// chartFont is the face every chart's text uses.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// palette colours series: Okabe and Ito's colour-blind-safe set.
var palette = []color.RGBA{
	{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{86, 180, 233, 255}, {213, 94, 0, 255}, {240, 228, 66, 255}, {0, 0, 0, 255},
}

func paletteColor(i int) color.Color { return palette[i%len(palette)] }

// newChart is a plot with the house style: sans text, a light grid, the
// legend top left.
func newChart(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, s := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font,
		&p.Y.Label.TextStyle.Font, &p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		size := s.Size
		*s = chartFont
		s.Size = size
	}
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(4), vg.Points(-4)
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 225}
	grid.Horizontal.Color = color.Gray{Y: 225}
	p.Add(grid)
	return p
}

// setLog makes an axis logarithmic with logTicks, over [lo, hi] widened a
// little so end points are not drawn on the frame. lo and hi must be > 0.
func setLog(a *plot.Axis, lo, hi float64) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = plot.TickerFunc(logTicks)
	if lo == hi {
		lo, hi = lo/2, hi*2
	} else {
		pad := math.Pow(hi/lo, 0.06)
		lo, hi = lo/pad, hi*pad
	}
	a.Min, a.Max = lo, hi
}

// setLinear sets a linear axis to [lo, hi] with a margin.
func setLinear(a *plot.Axis, lo, hi float64) {
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.06
	a.Min, a.Max = lo-pad, hi+pad
}

// logTicks labels 1-2-5 steps, or only powers of ten over wide ranges, with
// unlabelled minor ticks at every multiple in between.
func logTicks(lo, hi float64) []plot.Tick {
	var major, minor []float64
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		p := math.Pow(10, e)
		for d := 1.0; d < 10; d++ {
			if v := d * p; v >= lo && v <= hi {
				minor = append(minor, v)
			}
		}
	}
	decades := 0
	for _, v := range minor {
		if isPow10(v) {
			decades++
		}
	}
	for _, v := range minor {
		lead := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9))
		lead = math.Round(lead)
		if (decades >= 3 && lead == 1) || (decades < 3 && (lead == 1 || lead == 2 || lead == 5)) {
			major = append(major, v)
		}
	}
	if len(major) < 2 {
		major = minor
	}
	if len(major) < 2 {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	var ticks []plot.Tick
	for _, v := range minor {
		t := plot.Tick{Value: v}
		if slices.Contains(major, v) {
			t.Label = tickLabel(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func isPow10(v float64) bool {
	e := math.Round(math.Log10(v))
	return math.Abs(v-math.Pow(10, e)) < 1e-9*v
}

// tickLabel writes a tick value compactly: 20, 500, 10k, 2M, 0.5.
func tickLabel(v float64) string {
	switch {
	case v >= 1e6 && math.Mod(v, 1e6) == 0:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case v >= 1e4 && math.Mod(v, 1e3) == 0:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// svgPrelude is the XML declaration and comment vgsvg writes first, which
// have no place inside an HTML document.
var svgPrelude = regexp.MustCompile(`^<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)

// svgSize is the size vgsvg gives the root element, in points.
var svgSize = regexp.MustCompile(`^<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`)

// renderChart draws p as an SVG element ready to be placed in HTML: no
// prelude, sized in CSS pixels with a viewBox so it scales down, and
// labelled for screen readers. A plot that cannot be drawn (gonum panics on
// some degenerate input) becomes an error, never a crash of the report.
func renderChart(p *plot.Plot, label string) (svg string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chart %q: %v", label, r)
		}
	}()
	c := vgsvg.New(chartW, chartH)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := svgPrelude.ReplaceAllString(b.String(), "")
	s = svgSize.ReplaceAllString(s, `<svg class="chart" width="$1" height="$2" role="img" aria-label="`+attrEscape(label)+`"`)
	return s, nil
}

// attrEscape escapes s for a double-quoted attribute.
func attrEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// xy is a point; xys adapt to plotter.XYer.
type xys []plotter.XY

func (p xys) Len() int                    { return len(p) }
func (p xys) XY(i int) (float64, float64) { return p[i].X, p[i].Y }

// rangeBars are error bars from a low to a high value around each point.
type rangeBars struct {
	xys
	lo, hi []float64
}

func (r rangeBars) YError(i int) (float64, float64) {
	return r.xys[i].Y - r.lo[i], r.hi[i] - r.xys[i].Y
}

// curve is a closed form of ALGORITHMS.md drawn as a line over N. An
// exact curve is one configuration's figure (bully's crash case): it is
// drawn only when some size's rows report exactly it as theory_messages.
// Other curves bound or bracket the algorithm's runs (rings' best and
// worst arrangements): drawn when the rows' configuration has a reference
// figure at all (default parameters, no fault beyond a textbook crash).
type curve struct {
	label string
	f     func(n float64) float64
	exact bool
}

// applies reports whether curve c describes the configuration of pts: an
// exact curve is every reported theory_messages (and some size reports
// one); another curve needs some size with a reference figure.
func (c curve) applies(pts []messagePoint) bool {
	some := false
	for _, pt := range pts {
		if c.exact && pt.theory.IsSet() && math.Abs(c.f(float64(pt.n))-float64(pt.theory.Get())) >= 0.5 {
			return false
		}
		some = some || pt.theory.IsSet() || !c.exact && pt.bound.IsSet()
	}
	return some
}

// theoryCurves are ALGORITHMS.md's message counts by algorithm, drawn over
// the measured range of N.
var theoryCurves = map[string][]curve{
	"ring":           ringCurves,
	"chang-roberts":  ringCurves,
	"ring-initiator": ringCurves,
	"lcr": {
		{"N(N+1)/2+N (descending ids)", func(n float64) float64 { return n*(n+1)/2 + n }, false},
		{"3N-1 (ascending ids)", func(n float64) float64 { return 3*n - 1 }, false},
	},
	"hs": {
		{"8N(⌈log₂N⌉+2)+5N (bound)", func(n float64) float64 { return 8*n*(math.Ceil(math.Log2(n))+2) + 5*n }, false},
	},
	"bully": {
		{"N(N-1)/2+(N-1)(N-2)/2+N-2 (lowest detects)", func(n float64) float64 {
			return n*(n-1)/2 + (n-1)*(n-2)/2 + n - 2
		}, true},
	},
}

var ringCurves = []curve{
	{"3N-1 (worst: successor of max initiates)", func(n float64) float64 { return 3*n - 1 }, false},
	{"2N (best: max initiates)", func(n float64) float64 { return 2 * n }, false},
}

// curveNs are integer sizes spread evenly on a log scale over [lo, hi],
// every integer when the range is short.
func curveNs(lo, hi int) []float64 {
	var ns []float64
	const steps = 48
	for i := 0; i <= steps; i++ {
		n := math.Round(float64(lo) * math.Pow(float64(hi)/float64(lo), float64(i)/steps))
		if len(ns) == 0 || n > ns[len(ns)-1] {
			ns = append(ns, n)
		}
	}
	return ns
}

// messagePoint is one size of one algorithm on the messages chart.
type messagePoint struct {
	n                int
	median, min, max float64
	theory, bound    Opt[int64]
}

// bounds tracks the data range of a chart for its axes.
type bounds struct{ lo, hi float64 }

func newBounds() bounds { return bounds{math.Inf(1), math.Inf(-1)} }

func (b *bounds) add(v float64) {
	if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
		b.lo, b.hi = math.Min(b.lo, v), math.Max(b.hi, v)
	}
}

func (b bounds) ok() bool { return b.lo <= b.hi }

// messagesChart draws one algorithm's median messages against N on log
// scales, with min–max bars, the rows' theory_messages and theory_bound,
// and the closed forms of theoryCurves.
func messagesChart(algorithm string, pts []messagePoint) (string, error) {
	p := newChart(algorithm+": messages vs N", "N (nodes)", "messages")
	xb, yb := newBounds(), newBounds()
	var med xys
	var lo, hi []float64
	var theory, bound xys
	for _, pt := range pts {
		n := float64(pt.n)
		if n <= 0 || pt.median <= 0 {
			continue
		}
		xb.add(n)
		yb.add(pt.min)
		yb.add(pt.max)
		med = append(med, plotter.XY{X: n, Y: pt.median})
		lo, hi = append(lo, math.Max(pt.min, pt.median/1e9)), append(hi, pt.max)
		if pt.theory.IsSet() && pt.theory.Get() > 0 {
			theory = append(theory, plotter.XY{X: n, Y: float64(pt.theory.Get())})
			yb.add(float64(pt.theory.Get()))
		}
		if pt.bound.IsSet() && pt.bound.Get() > 0 {
			bound = append(bound, plotter.XY{X: n, Y: float64(pt.bound.Get())})
			yb.add(float64(pt.bound.Get()))
		}
	}
	if !xb.ok() {
		return "", nil
	}
	var curves []curve
	for _, c := range theoryCurves[algorithm] {
		if c.applies(pts) {
			curves = append(curves, c)
		}
	}
	ns := curveNs(int(xb.lo), int(xb.hi))
	for ci, c := range curves {
		var line xys
		for _, n := range ns {
			if v := c.f(n); v > 0 {
				line = append(line, plotter.XY{X: n, Y: v})
				yb.add(v)
			}
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return "", err
		}
		l.Color = color.Gray{Y: uint8(90 + 50*ci)}
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3 + 2*float64(ci))}
		p.Add(l)
		p.Legend.Add(c.label, l)
	}
	if len(bound) > 0 {
		s, err := plotter.NewScatter(bound)
		if err != nil {
			return "", err
		}
		s.Shape, s.Color, s.Radius = draw.TriangleGlyph{}, paletteColor(5), vg.Points(3.5)
		p.Add(s)
		p.Legend.Add("theory_bound (rows)", s)
	}
	if len(theory) > 0 {
		s, err := plotter.NewScatter(theory)
		if err != nil {
			return "", err
		}
		s.Shape, s.Color, s.Radius = draw.RingGlyph{}, paletteColor(1), vg.Points(5)
		p.Add(s)
		p.Legend.Add("theory_messages (rows)", s)
	}
	bars, err := plotter.NewYErrorBars(rangeBars{med, lo, hi})
	if err != nil {
		return "", err
	}
	bars.Color = paletteColor(0)
	line, points, err := plotter.NewLinePoints(med)
	if err != nil {
		return "", err
	}
	line.Color, points.Color = paletteColor(0), paletteColor(0)
	points.Shape, points.Radius = draw.CircleGlyph{}, vg.Points(2.5)
	p.Add(bars, line, points)
	p.Legend.Add("measured median (bars: min-max)", line, points)
	setLog(&p.X, xb.lo, xb.hi)
	setLog(&p.Y, yb.lo, yb.hi)
	return renderChart(p, algorithm+": messages against N, log scales")
}

// overviewSeries is one series' points: a figure by N (byNChart), or by
// run (the history's trend charts).
type overviewSeries struct {
	label string
	pts   xys
}

// boxSample is the values of one size on a distribution chart.
type boxSample struct {
	n      int
	values []float64
}

// FaultWindow is a span of a run during which a fault was active, drawn as a
// shaded band on time axes: From and Until are in units of T since the
// run's first event. Rows do not carry fault schedules yet; HTMLOptions.Faults
// is the hook that will supply them.
type FaultWindow struct {
	From, Until float64
	Label       string // what the fault was, e.g. "partition {0,1}|{2,3}"
}

// drawable keeps the values a chart can place: finite, and positive on a
// log axis.
func drawable(xs []float64, logAxis bool) plotter.Values {
	var vs plotter.Values
	for _, v := range xs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) && (!logAxis || v > 0) {
			vs = append(vs, v)
		}
	}
	return vs
}

// styleBox gives a box plot the house style: a light blue box, the median
// in vermillion.
func styleBox(b *plotter.BoxPlot) {
	b.FillColor = color.RGBA{0, 114, 178, 60}
	b.BoxStyle.Color = paletteColor(0)
	b.MedianStyle.Color = paletteColor(5)
	b.MedianStyle.Width = vg.Points(1.5)
}

// boxChart draws the distribution of a figure at each N as box plots
// (quartiles, whiskers to 1.5 IQR, outliers as points) on a log N axis, the
// values on a log axis when logY, with fault windows shaded across the
// figure's axis when it is a time.
func boxChart(title, yLabel string, samples []boxSample, logY bool, faults []FaultWindow) (string, error) {
	p := newChart(title, "N (nodes)", yLabel)
	xb, yb := newBounds(), newBounds()
	ylo, yhi := math.Inf(1), math.Inf(-1)
	var boxes []plot.Plotter
	for _, s := range samples {
		vs := drawable(s.values, logY)
		for _, v := range vs {
			yb.add(v)
			ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
		}
		if len(vs) == 0 || s.n <= 0 {
			continue
		}
		xb.add(float64(s.n))
		b, err := plotter.NewBoxPlot(vg.Points(9), float64(s.n), vs)
		if err != nil {
			return "", err
		}
		styleBox(b)
		boxes = append(boxes, b)
	}
	if !xb.ok() || ylo > yhi {
		return "", nil
	}
	setLog(&p.X, xb.lo, xb.hi)
	if logY {
		setLog(&p.Y, yb.lo, yb.hi)
	} else {
		setLinear(&p.Y, math.Min(0, ylo), yhi)
	}
	for i, f := range faults {
		lo, hi := math.Max(f.From, p.Y.Min), math.Min(f.Until, p.Y.Max)
		if !(lo < hi) {
			continue
		}
		band, err := plotter.NewPolygon(xys{{X: p.X.Min, Y: lo}, {X: p.X.Max, Y: lo}, {X: p.X.Max, Y: hi}, {X: p.X.Min, Y: hi}})
		if err != nil {
			return "", err
		}
		band.Color = color.RGBA{213, 94, 0, 40}
		band.LineStyle.Width = 0
		p.Add(band)
		if i == 0 {
			p.Legend.Add("fault windows", band)
		}
	}
	p.Add(boxes...)
	return renderChart(p, title)
}
