package reports

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"
)

// TestTwin: the simulated and live rows of one scenario meet group by
// group whatever their runtime column, with compare's statistics; a live
// turnaround twice the simulated one exceeds the noise, equal message
// counts do not, and twin.csv says so line by line.
func TestTwin(t *testing.T) {
	sim := trialsOf("lcr", 8, 44, 46, 44, 48, 44)
	live := trialsOf("lcr", 8, 44, 46, 44, 48, 44)
	for i := range live {
		live[i].Runtime = "live"
		live[i].TurnaroundT = Some(2 * live[i].TurnaroundT.Get())
	}
	c := twinOf(sim, live, false)
	if c.Groups != 1 {
		t.Fatalf("%d groups, want the sim and live rows in one", c.Groups)
	}
	v := verdicts(c)
	if v["lcr/8/turnaround_t"] != Regression || v["lcr/8/messages"] != NoChange || v["lcr/8/safety"] != NoChange {
		t.Fatalf("verdicts %v", v)
	}
	var b bytes.Buffer
	if err := WriteTwinCSV(&b, c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(TwinColumns, ",") || len(recs) != 1+len(c.Changes) {
		t.Fatalf("twin.csv: header %v, %d lines for %d changes", recs[0], len(recs), len(c.Changes))
	}
	got := map[string][]string{}
	for _, r := range recs[1:] {
		got[r[4]] = r
	}
	// The verdict rests on q, written beside p.
	if r := got["turnaround_t"]; r[8] != "22" || r[9] != "44" || r[10] != "1" || r[11] == "" || r[12] != changeOf(t, c, "turnaround_t").Q.String() || r[12] == "" || r[13] != "true" || r[14] != "live higher" {
		t.Fatalf("turnaround_t line %v", r)
	}
	if r := got["messages"]; r[13] != "false" || r[14] != "within noise" {
		t.Fatalf("messages line %v", r)
	}
	var text, page bytes.Buffer
	if err := WriteTwinText(&text, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "LIVE HIGHER") || !strings.Contains(text.String(), "1 exceed the noise") {
		t.Fatalf("text:\n%s", text.String())
	}
	if err := WriteTwinHTML(&page, c, "adhoc"); err != nil || !strings.Contains(page.String(), "live higher") {
		t.Fatalf("page: %v", err)
	}
}

// TestNetworkDeparture: the report says how far the live network's
// measured delays departed from the configured T; simulated rows and rows
// without a measurement say nothing.
func TestNetworkDeparture(t *testing.T) {
	rows := []Row{
		{Runtime: "live", TS: 0.005, DelayMeanS: Some(0.006), DelayP99S: Some(0.01)},
		{Runtime: "live", TS: 0.005, DelayMeanS: Some(0.0055), DelayP99S: Some(0.02)},
		{Runtime: "live", TS: 0.005, DelayMeanS: Some(0.0065), DelayP99S: Some(0.03)},
		{Runtime: "live", TS: 0.005},
		{Runtime: "sim", TS: 0.005, DelayMeanS: Some(0.005), DelayP99S: Some(0.005)},
	}
	got := departureOf(rows)
	for _, want := range []string{"configured T 5 ms", "measured mean 6 ms (+20.0%)", "p99 20 ms (+300.0%)", "over 3 trials"} {
		if !strings.Contains(got, want) {
			t.Fatalf("%q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "ran again") {
		t.Fatalf("%q speaks of reruns, and none ran", got)
	}
	rows[0].Reruns, rows[0].Overruns = Some(int64(2)), Some(int64(1))
	got = departureOf(rows)
	for _, want := range []string{"1 trials ran again (2 attempts not kept)", "1 kept after their last attempt overran too"} {
		if !strings.Contains(got, want) {
			t.Fatalf("%q lacks %q", got, want)
		}
	}
	if departureOf(rows[3:]) != "" {
		t.Fatal("no live measurement: want nothing said")
	}
}

// A share that falls live is said as lower: live trials that violate
// safety where no simulated one did are a regression of the safe share,
// "live lower", where a larger median is "live higher".
func TestTwinShareLabel(t *testing.T) {
	sim := trialsOf("bully", 32, 105, 105, 105)
	live := trialsOf("bully", 32, 105, 105, 105)
	for i := range live {
		live[i].Runtime = "live"
		live[i].SafetyViolations = 1
	}
	c := twinOf(sim, live, false)
	for i := range c.Changes {
		ch := &c.Changes[i]
		if ch.Metric != "safety" {
			continue
		}
		if ch.Verdict != Regression || TwinLabel(ch) != "live lower" {
			t.Fatalf("safety: %s, %q; want a regression said as live lower", ch.Verdict, TwinLabel(ch))
		}
		var text bytes.Buffer
		if err := WriteTwinText(&text, c); err != nil || !strings.Contains(text.String(), "LIVE LOWER      bully/") {
			t.Fatalf("text: %v\n%s", err, text.String())
		}
		return
	}
	t.Fatal("no safety change")
}

// An incident's twin (CompareOptions.Disruption) compares the disruption
// figures its signature is written in, as medians, where either side has
// them: live term_inflation 9 against 3 simulated exceeds the noise,
// disruptions equal on both sides do not; without Disruption, or for a
// group without terms, there is no such line.
func TestTwinDisruption(t *testing.T) {
	sim := trialsOf("raft", 3, 20, 22, 20, 24, 20, 22)
	live := trialsOf("raft", 3, 20, 22, 20, 24, 20, 22)
	for i := range sim {
		live[i].Runtime = "live"
		for _, r := range []*Row{&sim[i], &live[i]} {
			r.Disruptions, r.Elections = Some(int64(1)), Some(int64(4))
			r.LeaderlessT, r.StaleLeaderS = Some(2.0), Some(0.0)
		}
		sim[i].TermInflation, live[i].TermInflation = Some(int64(3)), Some(int64(9))
	}
	lcr := trialsOf("lcr", 8, 44, 46, 44)
	c := twinOf(append(sim, lcr...), live, true)
	v := verdicts(c)
	for _, m := range DisruptionMetrics {
		want := NoChange
		if m == "term_inflation" {
			want = Regression
		}
		if v["raft/3/"+m] != want {
			t.Errorf("raft %s: %q, want %q", m, v["raft/3/"+m], want)
		}
		if _, ok := v["lcr/8/"+m]; ok {
			t.Errorf("lcr, no terms: compared on %s", m)
		}
	}
	if ch := changeOf(t, c, "term_inflation"); ch.BaseMedian.Get() != 3 || ch.NewMedian.Get() != 9 {
		t.Errorf("term_inflation: sim median %v, live %v; want 3 and 9", ch.BaseMedian, ch.NewMedian)
	}
	v = verdicts(twinOf(sim, live, false))
	if _, ok := v["raft/3/term_inflation"]; ok {
		t.Error("without Disruption: term_inflation compared")
	}
}

// Whether a twin compares the disruption figures is decided once its live
// rows are read, on the scenarios they name, each once in the order the
// rows first name it (twin --help: a file with one of the incident
// library's scenarios is an incident twin): the sides gather the figures
// either way, and the simulated rows' scenarios do not count.
func TestTwinDecidesDisruptionOnLiveScenarios(t *testing.T) {
	sim := trialsOf("raft", 3, 20, 22, 20, 24, 20, 22)
	live := trialsOf("raft", 3, 20, 22, 20, 24, 20, 22)
	for i := range live {
		sim[i].Scenario, live[i].Runtime = "sim-only", "live"
		live[i].Scenario = []string{"a", "b"}[i%2]
		sim[i].TermInflation, live[i].TermInflation = Some(int64(3)), Some(int64(9))
	}
	for _, want := range []bool{false, true} {
		s, l := NewTwinSide(CompareOptions{Threshold: -1}), NewTwinSide(CompareOptions{Threshold: -1})
		for i := range sim {
			s.Add(&sim[i])
			l.Add(&live[i])
		}
		var asked []string
		c := Twin(s, l, func(names []string) bool { asked = names; return want })
		if strings.Join(asked, ",") != "a,b" {
			t.Fatalf("asked about %q; want the live rows' scenarios a,b", asked)
		}
		compared := slices.ContainsFunc(c.Changes, func(ch Change) bool { return ch.Metric == "term_inflation" })
		if compared != want {
			t.Errorf("disruption %v: term_inflation compared %v", want, compared)
		}
	}
}

// twinOf compares rows held in memory as Twin compares its sides, the
// disruption figures too when disruption is set.
func twinOf(sim, live []Row, disruption bool) Comparison {
	s, l := NewTwinSide(CompareOptions{Threshold: -1}), NewTwinSide(CompareOptions{Threshold: -1})
	for i := range sim {
		s.Add(&sim[i])
	}
	for i := range live {
		l.Add(&live[i])
	}
	return Twin(s, l, func([]string) bool { return disruption })
}

// departureOf is networkDeparture of rows read as a report reads them.
func departureOf(rows []Row) string {
	rr := newReportReader(&HTMLOptions{})
	for i := range rows {
		rr.add(&rows[i])
	}
	return networkDeparture(rr)
}
