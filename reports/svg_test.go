package reports

import (
	"encoding/xml"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

func ringPoints() []messagePoint {
	var pts []messagePoint
	for _, n := range []int{4, 8, 16, 32, 64} {
		f := float64(n)
		pts = append(pts, messagePoint{n: n, median: 2.5 * f, min: 2 * f, max: 3*f - 1,
			theory: Some(int64(3*n - 1)), bound: Some(int64(3*n + 4))})
	}
	return pts
}

func testCharts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	var err error
	if out["messages"], err = messagesChart("chang-roberts", ringPoints()); err != nil {
		t.Fatal(err)
	}
	if out["overview"], err = byNChart("median messages vs N", "messages", []overviewSeries{
		{"ring", xys{{X: 4, Y: 11}, {X: 8, Y: 23}, {X: 16, Y: 47}}},
		{"lcr", xys{{X: 4, Y: 14}, {X: 8, Y: 44}, {X: 16, Y: 152}}},
	}, true); err != nil {
		t.Fatal(err)
	}
	var samples []boxSample
	for _, n := range []int{4, 8, 16} {
		var vs []float64
		for i := range 20 {
			vs = append(vs, float64(2*n+i%7)+math.Floor(float64(i*i%11)/3))
		}
		samples = append(samples, boxSample{n: n, values: vs})
	}
	faults := []FaultWindow{{From: 10, Until: 20, Label: "partition"}}
	if out["box"], err = boxChart("lcr: turnaround_t", "turnaround_t (T)", samples, true, faults); err != nil {
		t.Fatal(err)
	}
	if out["timeouts"], err = boxChart("bully: timeouts", "timeouts per trial", samples, false, nil); err != nil {
		t.Fatal(err)
	}
	if out["sidebyside"], err = sideBySideChart("messages at N = 16", "messages per trial",
		[]namedSample{{"ring", samples[0].values}, {"lcr", samples[1].values}, {"hs", samples[2].values}}, true); err != nil {
		t.Fatal(err)
	}
	if out["cdf"], err = cdfChart("failover", "milliseconds after the crash",
		[]cdfSeries{{"raft", []float64{160, 150, 290, 180, 170, 310, 150}, 0}, {"etcd-raft", []float64{210, 220, 230}, 0}}, false); err != nil {
		t.Fatal(err)
	}
	// Figure 16's form: a log time axis, and a line that stops at 60%
	// because two of five trials never elected a leader.
	if out["cdflog"], err = cdfChart("downtime", "milliseconds after the crash (log)",
		[]cdfSeries{{"12–24 ms", []float64{20, 25, 31, 40, 152}, 0}, {"150–150 ms", []float64{900, 2500, 11000}, 5}}, true); err != nil {
		t.Fatal(err)
	}
	out["faults"] = faultTimeline([]FaultWindow{{From: 2, Until: 12, Label: "partition(halves)[0,1|2,3]"},
		{From: 5, Until: math.Inf(1), Label: "crash(3)"}}, 9.5)
	return out
}

// The charts are byte-identical for the same input, and match the golden
// files (go test -rewrite regenerates them; review the SVGs before
// committing).
func TestChartsGolden(t *testing.T) {
	a, b := testCharts(t), testCharts(t)
	for _, name := range []string{"messages", "overview", "box", "timeouts", "sidebyside", "cdf", "cdflog", "faults"} {
		if a[name] != b[name] {
			t.Errorf("%s chart differs between two renderings", name)
		}
		if !strings.HasPrefix(a[name], `<svg class="chart"`) && !strings.HasPrefix(a[name], `<svg class="faults"`) {
			t.Errorf("%s chart starts %.40q", name, a[name])
		}
		checkXML(t, name, a[name])
		golden(t, "chart_"+name+".svg.golden", []byte(a[name]))
	}
	if !strings.Contains(a["messages"], "3N-1 (worst: successor of max initiates)") ||
		!strings.Contains(a["messages"], "theory_messages (rows)") || !strings.Contains(a["messages"], "theory_bound (rows)") {
		t.Error("messages chart lacks its theory legend")
	}
	if !strings.Contains(a["box"], "fault windows") {
		t.Error("box chart lacks the fault window")
	}
}

// checkXML parses svg as XML: inline SVG in HTML is forgiving, but a file
// saved from the page should still open.
func checkXML(t *testing.T, name, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("%s: not well-formed XML: %v", name, err)
			return
		}
	}
}

func TestChartsDegenerate(t *testing.T) {
	// One size, one value, zeros on a log axis: drawn or skipped, never a panic.
	if _, err := messagesChart("lcr", []messagePoint{{n: 5, median: 20, min: 20, max: 20}}); err != nil {
		t.Error(err)
	}
	if svg, err := messagesChart("lcr", []messagePoint{{n: 5, median: 0}}); err != nil || svg != "" {
		t.Errorf("zero messages on a log axis: %q, %v", svg, err)
	}
	if _, err := boxChart("x", "y", []boxSample{{n: 4, values: []float64{0, 0, 3}}}, true, nil); err != nil {
		t.Error(err)
	}
	if _, err := boxChart("x", "y", []boxSample{{n: 4, values: []float64{0, 0}}}, false, nil); err != nil {
		t.Error(err)
	}
	if svg, err := byNChart("t", "y", []overviewSeries{{"a", xys{plotter.XY{X: 4, Y: 0}}}}, true); err != nil || svg != "" {
		t.Errorf("no positive point: %q, %v", svg, err)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) string {
		var l []string
		for _, tk := range logTicks(lo, hi) {
			if tk.Label != "" {
				l = append(l, tk.Label)
			}
		}
		return strings.Join(l, " ")
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{3, 300, "5 10 20 50 100 200"},
		{3, 70000, "10 100 1000 10k"},
		{11, 14, "11 12 13 14"},
		{0.5, 3, "0.5 1 2"},
	} {
		if got := labels(tc.lo, tc.hi); got != tc.want {
			t.Errorf("ticks(%v, %v) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

const lamportTrace = `{"trial":0,"algorithm":"ring","variant":"default","nodes":4,"seed":42}
{"t":0,"ev":"start","p":0}
{"t":0,"ev":"crash","p":2}
{"t":0,"ev":"initiate","p":3}
{"t":0,"ev":"send","id":2,"from":3,"to":0,"kind":"ELECTION","rank":"4"}
{"t":1000000,"ev":"recv","id":2,"from":3,"to":0,"kind":"ELECTION","rank":"4"}
{"t":1000000,"ev":"send","id":3,"from":0,"to":1,"kind":"ELECTION","rank":"4"}
{"t":2000000,"ev":"recv","id":3,"from":0,"to":1,"kind":"ELECTION","rank":"4"}
{"t":2000000,"ev":"send","id":4,"from":1,"to":2,"kind":"ELECTION","rank":"4"}
{"t":3000000,"ev":"drop","id":4,"from":1,"to":2,"kind":"ELECTION","rank":"4"}
{"t":3000000,"ev":"timer","p":1,"timer":"T1"}
{"t":4000000,"ev":"suspect","p":1,"q":2}
{"t":4000000,"ev":"send","id":5,"from":1,"to":3,"kind":"ELECTION","rank":"4"}
{"t":5000000,"ev":"recv","id":5,"from":1,"to":3,"kind":"ELECTION","rank":"4"}
{"t":5000000,"ev":"decide","p":3,"leader":"4"}
{"t":5000000,"ev":"send","id":6,"from":3,"to":0,"kind":"ELECTED","rank":"4"}
`

func TestLamportGolden(t *testing.T) {
	trials, err := readTrace(strings.NewReader(lamportTrace), func(TraceHeader) (traceWant, bool) {
		return traceWant{max: DiagramMaxEvents, around: -1}, true
	})
	if err != nil || len(trials) != 1 {
		t.Fatalf("%v, %d trials", err, len(trials))
	}
	faults := []FaultWindow{{From: 1.5, Until: 3.5, Label: "partition"}}
	a := lamportDiagram("d1", trials[0], 1e6, faults, nil, nil)
	if b := lamportDiagram("d1", trials[0], 1e6, faults, nil, nil); a != b {
		t.Fatal("two renderings differ")
	}
	checkXML(t, "lamport", a)
	for _, want := range []string{"dropped at the crashed receiver", "p1 suspects p2", "p2 crashes", "never delivered",
		"p3 decides leader 4", "p1 timer T1", `class="fault"`} {
		if !strings.Contains(a, want) {
			t.Errorf("diagram lacks %q", want)
		}
	}
	golden(t, "lamport.svg.golden", []byte(a))
}

func TestReadTrace(t *testing.T) {
	var trace strings.Builder
	for trial := range 3 {
		trace.WriteString(`{"trial":` + itoa(trial) + `,"algorithm":"lcr","variant":"default","nodes":4,"seed":` + itoa(100+trial) + "}\n")
		for i := range 40 {
			trace.WriteString(`{"t":` + itoa(i*1000000) + `,"ev":"start","p":` + itoa(i%4) + "}\n")
		}
	}
	trials, err := readTrace(strings.NewReader(trace.String()), func(h TraceHeader) (traceWant, bool) {
		switch h.Trial {
		case 0:
			return traceWant{max: 10, around: -1}, true
		case 2:
			return traceWant{around: 20 * 1000000}, true
		}
		return traceWant{}, false
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 2 || trials[0].Trial != 0 || trials[1].Trial != 2 || trials[1].Seed != 102 {
		t.Fatalf("trials %+v", trials)
	}
	if d := trials[0]; len(d.Events) != 10 || !d.Truncated || d.Total != 40 || d.Excerpt != nil {
		t.Errorf("diagram trial: %d events, truncated %v, total %d", len(d.Events), d.Truncated, d.Total)
	}
	// excerptBefore events before the instant, the one at it, excerptAfter after.
	ex := trials[1].Excerpt
	if len(ex) != excerptBefore+1+excerptAfter || ex[excerptBefore].T != 20*1000000 || ex[excerptBefore+1].T != 21*1000000 {
		t.Errorf("excerpt of %d events from %v", len(ex), ex[0].T)
	}

	// Maintenance messages do not count: the excerpt still holds
	// excerptBefore other events before the instant, with the pings between
	// them kept for a reader who shows them; every event at the instant is
	// kept, however many pings come before it.
	trace.Reset()
	trace.WriteString(`{"trial":0,"algorithm":"bully","variant":"classic","nodes":4,"seed":1}` + "\n")
	for i := range 40 {
		trace.WriteString(`{"t":` + itoa(i*1000000) + `,"ev":"timer","p":0,"timer":"T1"}` + "\n")
		for range 5 {
			trace.WriteString(`{"t":` + itoa(i*1000000) + `,"ev":"send","from":1,"to":2,"kind":"PING"}` + "\n")
		}
	}
	trace.WriteString(`{"t":40000000,"ev":"decide","p":3,"leader":"9"}` + "\n")
	trials, err = readTrace(strings.NewReader(trace.String()), func(h TraceHeader) (traceWant, bool) {
		return traceWant{around: 40 * 1000000, maint: func(k string) bool { return k == "PING" }}, true
	})
	if err != nil {
		t.Fatal(err)
	}
	ex = trials[0].Excerpt
	others, pings := 0, 0
	for _, ev := range ex {
		if ev.Kind == "PING" {
			pings++
		} else {
			others++
		}
	}
	// The pings after each kept timer, and those after the last timer the
	// window let go.
	if others != excerptBefore+1 || pings != 5*excerptBefore+5 || ex[len(ex)-1].Ev != "decide" {
		t.Errorf("excerpt: %d events besides %d pings, last %+v", others, pings, ex[len(ex)-1])
	}
	if _, err := readTrace(strings.NewReader("{\"trial\":0,\"algorithm\":\"x\",\"nodes\":2,\"seed\":1}\n{not json\n"),
		func(TraceHeader) (traceWant, bool) { return traceWant{max: 5, around: -1}, true }); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
}

func TestViolationTime(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int64
		ok   bool
	}{
		{"undecided at 10ms: a live process never learned a leader", 10e6, true},
		{"wrong-leader at 1.5ms: p3 decided 4", 1.5e6, true},
		{"disagreement at 2m3.5s: x", 123.5e9, true},
		{"two leaders", 0, false},
	} {
		got, ok := violationTime(tc.v)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q: %v %v", tc.v, got, ok)
		}
	}
}

// A crashed lane is grey until its restart, not to the end: a restarted
// process is back (and may be the story, as raft with amnesia is).
func TestLamportGreysACrashUntilItsRestart(t *testing.T) {
	const trace = `{"trial":0,"algorithm":"raft","variant":"default","nodes":2,"seed":1}
{"t":0,"ev":"start","p":0}
{"t":0,"ev":"start","p":1}
{"t":2000000,"ev":"crash","p":0}
{"t":4000000,"ev":"restart","p":0}
{"t":6000000,"ev":"crash","p":1}
{"t":10000000,"ev":"decide","p":0,"leader":"1"}
`
	trials, err := readTrace(strings.NewReader(trace), func(TraceHeader) (traceWant, bool) {
		return traceWant{max: DiagramMaxEvents, around: -1}, true
	})
	if err != nil || len(trials) != 1 {
		t.Fatalf("%v, %d trials", err, len(trials))
	}
	d := newLamport("g", trials[0], 1e6, nil)
	var b strings.Builder
	d.lanes(&b)
	rects := regexp.MustCompile(`<rect x="[^"]*" y="([^"]*)" width="8" height="([^"]*)"`).FindAllStringSubmatch(b.String(), -1)
	if len(rects) != 2 {
		t.Fatalf("%d grey spans, want 2 (p0 until its restart, p1 to the end):\n%s", len(rects), b.String())
	}
	span := func(i int) float64 { v, _ := strconv.ParseFloat(rects[i][2], 64); return v }
	if want := d.y(4000000) - d.y(2000000); math.Abs(span(0)-want) > 0.01 {
		t.Errorf("p0 grey for %.2f, want %.2f (crash to restart)", span(0), want)
	}
	if want := lamportTop + d.h - d.y(6000000); math.Abs(span(1)-want) > 0.01 {
		t.Errorf("p1 grey for %.2f, want %.2f (crash to the end)", span(1), want)
	}
}

// The diagram's filters, labels and extent (issue #40, item 8): a lost
// heartbeat hides with the other heartbeats; lanes name positions and
// identities; arrows say what they carry, abbreviated, and leave a label
// out rather than overlap one; the axis ends at the last message or
// decision, not at a heal long after.
func TestLamportLabelsFiltersAndEnd(t *testing.T) {
	const hex = "e8424b0371e933fd675fbcb82aab4b5f88667714d66c94edc723ae388c625e7c"
	var trace strings.Builder
	trace.WriteString(`{"trial":0,"algorithm":"bully","variant":"classic","nodes":3,"seed":1}` + "\n")
	trace.WriteString(`{"t":0,"ev":"send","id":1,"from":0,"to":1,"kind":"PING"}` + "\n")
	trace.WriteString(`{"t":0,"ev":"send","id":2,"from":0,"to":2,"kind":"ELECTION","rank":"3"}` + "\n")
	// Ten messages crossing the same gap at once: no room for ten labels.
	for i := range 10 {
		trace.WriteString(`{"t":0,"ev":"send","id":` + itoa(10+i) + `,"from":1,"to":2,"kind":"OK"}` + "\n")
	}
	for i := range 10 {
		trace.WriteString(`{"t":1000000,"ev":"recv","id":` + itoa(10+i) + `,"from":1,"to":2,"kind":"OK"}` + "\n")
	}
	trace.WriteString(`{"t":8000000,"ev":"send","id":30,"from":2,"to":0,"kind":"COORDINATOR","rank":"` + hex + `"}` + "\n")
	trace.WriteString(`{"t":20000000,"ev":"recv","id":30,"from":2,"to":0,"kind":"COORDINATOR","rank":"` + hex + `"}` + "\n")
	trace.WriteString(`{"t":20000000,"ev":"decide","p":0,"leader":"` + hex + `"}` + "\n")
	trace.WriteString(`{"t":80000000,"ev":"fault","what":"partition(halves)"}` + "\n")
	trace.WriteString(`{"t":100000000,"ev":"fault","what":"heal partition(halves)"}` + "\n")
	trials, err := readTrace(strings.NewReader(trace.String()), func(TraceHeader) (traceWant, bool) {
		return traceWant{max: DiagramMaxEvents, around: -1}, true
	})
	if err != nil || len(trials) != 1 {
		t.Fatalf("%v, %d trials", err, len(trials))
	}
	maint := func(k string) bool { return k == "PING" }
	svg := lamportDiagram("f", trials[0], 1e6, nil, maint, []string{"17", "5", hex})
	checkXML(t, "lamport", svg)

	lost := regexp.MustCompile(`<g class="([^"]*)"><line[^>]*/><path[^>]*/><title>#\d+ (\w+)`).FindAllStringSubmatch(svg, -1)
	if len(lost) != 2 {
		t.Fatalf("%d lost messages drawn, want 2 (the PING and the ELECTION)", len(lost))
	}
	for _, m := range lost {
		if hidden := strings.Contains(m[1], "maint"); hidden != maint(m[2]) {
			t.Errorf("lost %s has class %q: hidden %v, want %v", m[2], m[1], hidden, maint(m[2]))
		}
	}

	for _, want := range []string{"<title>p0 (id 17)</title>", ">id 17</text>", ">id e8424b03…</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("diagram lacks %q", want)
		}
	}
	labels := map[string]int{}
	for _, m := range regexp.MustCompile(`<text class="label"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		labels[m[1]]++
	}
	if labels["ELECTION 3"] != 1 || labels["COORDINATOR e8424b03…"] != 1 {
		t.Errorf("arrow labels %v; want ELECTION 3 and COORDINATOR e8424b03… once each", labels)
	}
	if labels["PING"] != 0 {
		t.Error("a heartbeat is labelled: its label would show though the heartbeat is hidden")
	}
	if n := labels["OK"]; n < 1 || n > 3 {
		t.Errorf("%d labels on ten OK arrows drawn over each other; want one to three", n)
	}

	d := newLamport("f", trials[0], 1e6, maint)
	if d.maxT > 20000001 {
		t.Errorf("the axis ends at %dns; want the last decision's 20ms, not the heal's 100ms", d.maxT)
	}
	if late := strings.Join(lateFaults(trials[0].Events, 1e6), "; "); late != "partition(halves) at 80T; heal partition(halves) at 100T" {
		t.Errorf("faults after the diagram: %q", late)
	}
}
