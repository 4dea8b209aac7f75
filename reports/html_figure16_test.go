package reports

import (
	"bytes"
	"html"
	"math"
	"strings"
	"testing"
)

// figure16Rows are the rows of two raft-figure16 ranges: 12–24 ms, ten
// trials with downtimes 10..100 ms (mean 55), and 150–150 ms, two trials
// that never elected again.
func figure16Rows() []Row {
	var rows []Row
	for i := range 10 {
		rows = append(rows, Row{Algorithm: "raft", Variant: "default", Runtime: "sim", Scenario: "raft-figure16-12-24",
			Nodes: 5, Trial: i, Seed: uint64(i + 1), FailoverS: Some(float64(10*(i+1)) / 1000), Correct: true, Live: true,
			Latency: "uniform(2ms,4ms)", TS: 0.003})
	}
	for i := range 2 {
		rows = append(rows, Row{Algorithm: "raft", Variant: "default", Runtime: "sim", Scenario: "raft-figure16-150-150",
			Nodes: 5, Trial: i, Seed: uint64(i + 1), Latency: "uniform(2ms,4ms)", TS: 0.003,
			Violation: "no-majority-leader at 30s"})
	}
	return rows
}

// The Figure 16 section: both panels' CDFs, and the table beside the
// paper's numbers with the relative difference (mean 55 against 35:
// +57.1%; worst 100 against 152: −34.2%); a range with no leader by the
// deadline is ∞, not left out.
func TestReportFigure16(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, RowsOf(figure16Rows()), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	i := strings.Index(page, `id="figure16"`)
	if i < 0 {
		t.Fatal("no Figure 16 section")
	}
	sec := page[i:]
	sec = html.UnescapeString(sec[:strings.Index(sec, "</section>")])
	for _, want := range []string{"raft: scaled ranges", "log scale", "mean 35; worst 152", "+57.1%; -34.2%",
		"median > 10000", "+∞", "12–24 ms", "150–150 ms", `href="#figure16"`} {
		if !strings.Contains(sec, want) && !strings.Contains(page, want) {
			t.Errorf("the Figure 16 section lacks %q", want)
		}
	}
	if strings.Count(sec, `<svg class="chart"`) != 1 {
		t.Errorf("want one chart (150–150 alone has no values to draw), got %d", strings.Count(sec, `<svg class="chart"`))
	}
	var plain bytes.Buffer
	if err := WriteHTML(&plain, RowsOf(sampleRows()), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), `id="figure16"`) {
		t.Error("a report without raft-figure16's rows has a Figure 16 section")
	}
}

func TestDowntimeStats(t *testing.T) {
	d := downtime{ms: []float64{10, 20, 30, math.Inf(1)}}
	if d.median() != 25 || d.unfinished() != 1 || !math.IsInf(d.mean(), 1) || !math.IsInf(d.quantile(0.99), 1) || d.quantile(0.5) != 20 {
		t.Errorf("median %v unfinished %d mean %v p99 %v p50 %v", d.median(), d.unfinished(), d.mean(), d.quantile(0.99), d.quantile(0.5))
	}
	if got := relDiff(287*1.25, 287); got != "+25.0%" {
		t.Errorf("relDiff = %s", got)
	}
}
