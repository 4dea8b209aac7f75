package reports

import (
	"bytes"
	"html"
	"strings"
	"testing"
)

// The libraries' failover section: one CDF per library scenario with a
// crash, a line per algorithm, ∞ for a trial without a new leader; none
// for a scenario without a crash, nor for a report without library
// scenarios.
func TestReportLibraryFailover(t *testing.T) {
	var rows []Row
	for i := range 6 {
		for _, a := range []struct{ alg, variant string }{{"hashicorp-raft", "default"}, {"raft", "default"}} {
			r := Row{Algorithm: a.alg, Variant: a.variant, Runtime: "live", Scenario: "hraft-leader-crash", Nodes: 5,
				Trial: i, Seed: uint64(i + 1), Faults: "t=0.1s:crash(2)", FailoverS: Some(float64(100*(i+1)) / 1000),
				Correct: true, Live: true, Latency: "2ms", TS: 0.002}
			if a.alg == "raft" && i == 5 {
				r.FailoverS, r.Correct, r.Live = Opt[float64]{}, false, false
			}
			rows = append(rows, r)
		}
		rows = append(rows, Row{Algorithm: "k8s-lease", Variant: "default", Runtime: "live", Scenario: "k8s-lease-holder-pause",
			Nodes: 5, Trial: i, Seed: uint64(i + 1), Faults: "t=0.1s:pause(2)", Correct: true, Live: true, Latency: "2ms", TS: 0.002})
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	i := strings.Index(page, `id="library-failover"`)
	if i < 0 {
		t.Fatal("no library failover section")
	}
	sec := page[i:]
	sec = html.UnescapeString(sec[:strings.Index(sec, "</section>")])
	for _, want := range []string{"hraft-leader-crash", "hashicorp-raft", "log scale", "∞", `href="#library-failover"`} {
		if !strings.Contains(sec, want) && !strings.Contains(page, want) {
			t.Errorf("the section lacks %q", want)
		}
	}
	if strings.Contains(sec, "k8s-lease-holder-pause") {
		t.Error("a scenario without a crash has a failover chart")
	}
	if n := strings.Count(sec, `<svg class="chart"`); n != 1 {
		t.Errorf("want one chart, got %d", n)
	}
	var plain bytes.Buffer
	if err := WriteHTML(&plain, RowsOf(figure16Rows()), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), `id="library-failover"`) {
		t.Error("a report without library scenarios has the section")
	}
}
