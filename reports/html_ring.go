package reports

import (
	"cmp"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// ringLecture are the ring algorithms the lecture compares (ALGORITHMS.md,
// "Ring family"): comparison-based asynchronous ones, the synchronous ones
// that use ids as numbers, and the randomized anonymous one.
var ringLecture = []string{"lcr", "hs", "chang-roberts", "ring", "ring-initiator", "time-slice", "variable-speeds", "itai-rodeh"}

// ringPoint is one configuration of the ring chart: the median messages
// per process at one size, over the trials without an error.
type ringPoint struct {
	n    int
	msgs []float64
}

// ringKey is one series of the ring chart.
type ringKey struct{ algorithm, arrangement string }

// ringSeries gathers the rows of the lecture's ring algorithms by
// algorithm and arrangement (the report's groups do not separate
// arrangements), each a series of sizes in increasing order, the series
// sorted by algorithm, then arrangement.
func ringSeries(groups []*reportGroup) (keys []ringKey, series [][]ringPoint) {
	byLabel := map[ringKey]map[int]*ringPoint{}
	for _, g := range groups {
		if !slices.Contains(ringLecture, g.Algorithm) || g.Runtime == "live" {
			continue
		}
		for _, arr := range g.ringArrangements {
			label := ringKey{g.Algorithm, arr}
			if byLabel[label] == nil {
				byLabel[label] = map[int]*ringPoint{}
				keys = append(keys, label)
			}
			pt := byLabel[label][g.Nodes]
			if pt == nil {
				pt = &ringPoint{n: g.Nodes}
				byLabel[label][g.Nodes] = pt
			}
			pt.msgs = append(pt.msgs, g.ringMsgs[arr]...)
		}
	}
	slices.SortFunc(keys, func(a, b ringKey) int {
		return cmp.Or(cmp.Compare(a.algorithm, b.algorithm), cmp.Compare(a.arrangement, b.arrangement))
	})
	for _, l := range keys {
		var pts []ringPoint
		for _, pt := range byLabel[l] {
			pts = append(pts, *pt)
		}
		slices.SortFunc(pts, func(a, b ringPoint) int { return cmp.Compare(a.n, b.n) })
		series = append(series, pts)
	}
	return keys, series
}

// ringDrawn reports whether the ring section has a chart to draw: some
// series of it has two sizes.
func ringDrawn(groups []*reportGroup) bool {
	_, series := ringSeries(groups)
	return slices.ContainsFunc(series, func(s []ringPoint) bool { return len(s) >= 2 })
}

// writeRingLecture is the ring section: messages per process against
// log₂N for every ring algorithm on every arrangement the rows hold, on
// one chart with the line N·log₂N/2 — lcr's exact count on the
// bit-reversal ring, the order of the Ω(N log N) lower bound for
// comparison-based algorithms on asynchronous rings — so that the bound,
// the gap to the synchronous algorithms (O(N), bought with ids used as
// numbers and with time) and what an arrangement costs show together.
// Nothing is drawn unless some series has two sizes.
func writeRingLecture(p *page, groups []*reportGroup) error {
	if !ringDrawn(groups) {
		return nil
	}
	keys, series := ringSeries(groups)
	svg, err := ringChart(keys, series)
	if err != nil || svg == "" {
		return err
	}
	p.section("ring", func() {
		p.h2("", txt("The ring lecture: messages per process against log₂N"))
		p.note("Median messages / N per size, one line per ring algorithm (its colour) and id arrangement (its glyph), log scale. " +
			"Dashed: log₂N/2, lcr's exact count N·log₂N/2 on the bit-reversal ring, the order of the Ω(N log N) " +
			"lower bound for comparison-based algorithms on asynchronous rings. A line that climbs with it " +
			"grows as N log N; one that stays flat is O(N) (time-slice, variable-speeds: synchronous rounds, " +
			"ids used as numbers); one that climbs steeper grows faster (lcr descending: N/2 per process).")
		p.figures([]string{svg})
	})
	return nil
}

// ringChart draws the ring section's chart: x log₂N (linear), y
// messages / N (log), each series coloured by its algorithm and marked by
// its arrangement's glyph (so that a dozen series stay apart with eight
// colours), the dashed log₂N/2 line, and a legend of colours and glyphs.
func ringChart(keys []ringKey, series [][]ringPoint) (string, error) {
	pl := newChart("ring algorithms: messages / N vs log₂N", "log₂ N", "messages / N")
	xb, yb := newBounds(), newBounds()
	var algos, arrs []string
	for _, k := range keys {
		if !slices.Contains(algos, k.algorithm) {
			algos = append(algos, k.algorithm)
		}
		if !slices.Contains(arrs, k.arrangement) {
			arrs = append(arrs, k.arrangement)
		}
	}
	slices.Sort(arrs)
	for i, s := range series {
		colour, glyph := paletteColor(slices.Index(algos, keys[i].algorithm)), glyphs[slices.Index(arrs, keys[i].arrangement)%len(glyphs)]
		var pts xys
		for _, pt := range s {
			if y := describe(pt.msgs).Median; pt.n > 1 && y.IsSet() && y.Get() > 0 {
				pts = append(pts, plotter.XY{X: math.Log2(float64(pt.n)), Y: y.Get() / float64(pt.n)})
				xb.add(pts[len(pts)-1].X)
				yb.add(pts[len(pts)-1].Y)
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return "", err
		}
		line.Color, points.Color = colour, colour
		points.Shape, points.Radius = glyph, vg.Points(2.5)
		pl.Add(line, points)
	}
	if !xb.ok() || xb.lo == xb.hi {
		return "", nil
	}
	if err := ringLegend(pl, algos, arrs); err != nil {
		return "", err
	}
	var bound xys
	for x := xb.lo; x <= xb.hi+1e-9; x += (xb.hi - xb.lo) / 32 {
		bound = append(bound, plotter.XY{X: x, Y: x / 2})
		yb.add(x / 2)
	}
	l, err := plotter.NewLine(bound)
	if err != nil {
		return "", err
	}
	l.Color, l.Dashes = color.Gray{Y: 90}, []vg.Length{vg.Points(5), vg.Points(3)}
	pl.Add(l)
	pl.Legend.Add("Ω(N log N): log₂N / 2", l)
	setLinear(&pl.X, xb.lo, xb.hi)
	setLog(&pl.Y, yb.lo, yb.hi)
	return renderChart(pl, "ring algorithms: messages per process against log2 N, with the N log N line")
}

// ringLegend names the colours (algorithms) and glyphs (arrangements) of
// the ring chart in its own legend.
func ringLegend(pl *plot.Plot, algos, arrs []string) error {
	for i, a := range algos {
		l, err := plotter.NewLine(xys{{X: 0, Y: 1}})
		if err != nil {
			return err
		}
		l.Color = paletteColor(i)
		pl.Legend.Add(a, l)
	}
	for i, a := range arrs {
		s, err := plotter.NewScatter(xys{{X: 0, Y: 1}})
		if err != nil {
			return err
		}
		s.Shape, s.Color, s.Radius = glyphs[i%len(glyphs)], color.Gray{Y: 60}, vg.Points(2.5)
		pl.Legend.Add("on "+a, s)
	}
	return nil
}
