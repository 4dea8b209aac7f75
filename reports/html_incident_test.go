package reports

import (
	"bytes"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// incidentRows are three trials each of etcd-raft/plain, etcd-raft/pre-vote
// and bully (no disruption figures) on an incident scenario, and a raft
// trial of another scenario, with figures the matrix must not show.
func incidentRows() []Row {
	var rows []Row
	add := func(variant string, trial int, elections, disruptions, terms int64, leaderless float64, inflation int64) {
		rows = append(rows, Row{Algorithm: "etcd-raft", Variant: variant, Runtime: "sim", Scenario: "one-way-inbound", Nodes: 5,
			Trial: trial, Seed: uint64(trial + 1), Correct: true, Live: true, TS: 0.001,
			Elections: Some(elections), Disruptions: Some(disruptions), Terms: Some(terms), LeaderlessT: Some(leaderless),
			StaleLeaderS: Some(0.0), TermInflation: Some(inflation)})
	}
	add("plain", 0, 10, 2, 12, 1.5, 4)
	add("plain", 1, 12, 5, 14, 3, 4)
	add("plain", 2, 11, 3, 13, 0.5, 4)
	for i := range 3 {
		add("pre-vote", i, 1, 0, 1, 0, 0)
	}
	for i := range 3 {
		rows = append(rows, Row{Algorithm: "bully", Variant: "classic", Runtime: "sim", Scenario: "one-way-inbound", Nodes: 5,
			Trial: i, Seed: uint64(i + 1), Correct: true, Live: true, TS: 0.001})
	}
	rows = append(rows, Row{Algorithm: "raft", Variant: "default", Runtime: "sim", Scenario: "adhoc", Nodes: 5, Correct: true, Live: true,
		TS: 0.001, Disruptions: Some(int64(99)), Elections: Some(int64(99))})
	return rows
}

// incidentSignatures: plain's two conditions hold, pre-vote's fails.
var incidentSignatures = []Signature{
	{Scenario: "one-way-inbound", Algorithm: "etcd-raft", Variant: "plain", Nodes: 5, Column: "disruptions", Condition: "median >=1", Held: true},
	{Scenario: "one-way-inbound", Algorithm: "etcd-raft", Variant: "plain", Nodes: 5, Column: "terms", Condition: "median >=12", Held: true},
	{Scenario: "one-way-inbound", Algorithm: "etcd-raft", Variant: "pre-vote", Nodes: 5, Column: "disruptions", Condition: "max <=0", Held: false},
}

// incidentTrace is plain's trial 0: p0 leads term 1 from 10ms, heartbeating
// every 5ms, and crashes at 42ms; p1 leads term 2 from 60ms to 100ms, and
// p2 term 3 from 60ms to 70ms at the same time. Only HEARTBEAT leads.
func incidentTrace() string {
	var b strings.Builder
	b.WriteString(`{"trial":0,"algorithm":"etcd-raft","variant":"plain","nodes":5,"seed":1,"scenario":"one-way-inbound"}` + "\n")
	beat := func(p int, term int64, from, to int64) {
		for t := from; t <= to; t += 5 {
			b.WriteString(`{"t":` + itoa(int(t*1e6)) + `,"ev":"send","id":1,"from":` + itoa(p) + `,"to":4,"kind":"HEARTBEAT","a":` + itoa(int(term)) + "}\n")
			b.WriteString(`{"t":` + itoa(int(t*1e6)) + `,"ev":"send","id":2,"from":` + itoa(p) + `,"to":3,"kind":"VOTE","a":9}` + "\n")
		}
	}
	beat(0, 1, 10, 40)
	b.WriteString(`{"t":42000000,"ev":"crash","p":0}` + "\n")
	beat(1, 2, 60, 100)
	beat(2, 3, 60, 70)
	return b.String()
}

func incidentOptions(trace string) HTMLOptions {
	opt := HTMLOptions{
		Incident:   func(s string) bool { return s == "one-way-inbound" },
		Signatures: incidentSignatures,
		Leads:      func(_, kind string) bool { return kind == "HEARTBEAT" },
		Faults:     FaultWindows,
	}
	if trace != "" {
		opt.Trace = strings.NewReader(trace)
	}
	return opt
}

// incidentSection renders rows and returns the incident section.
func incidentSection(t *testing.T, rows []Row, opt HTMLOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, RowsOf(rows), opt); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	i := strings.Index(page, `<section id="incident">`)
	if i < 0 {
		return ""
	}
	sec := page[i:]
	return sec[:strings.Index(sec, "</section>")+len("</section>\n")]
}

var (
	tableRowRe = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	tableCell  = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	anyTag     = regexp.MustCompile(`<[^>]+>`)
)

// tableTexts are the texts of the cells of the table with id, row by row.
func tableTexts(t *testing.T, page, id string) [][]string {
	t.Helper()
	i := strings.Index(page, `<table id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no table %s", id)
	}
	table := page[i : i+strings.Index(page[i:], "</table>")]
	var out [][]string
	for _, r := range tableRowRe.FindAllStringSubmatch(table, -1) {
		var cells []string
		for _, c := range tableCell.FindAllStringSubmatch(r[1], -1) {
			cells = append(cells, html.UnescapeString(anyTag.ReplaceAllString(c[1], "")))
		}
		out = append(out, cells)
	}
	return out
}

// The matrix shows exactly the figures of the rows: per configuration of
// the incident scenario, each disruption figure some trial has (no
// heal_disruptions: none healed) and the other column a signature bounds
// (terms), as median [min, max], with each condition beside its figure.
func TestIncidentMatrixFigures(t *testing.T) {
	sec := incidentSection(t, incidentRows(), incidentOptions(""))
	got := tableTexts(t, sec, "incident-one-way-inbound")
	want := [][]string{
		{"variant", "runtime", "nodes", "trials", "elections", "disruptions", "leaderless_t", "stale_leader_s", "term_inflation", "terms"},
		{"etcd-raft/plain", "sim", "5", "3", "11 [10, 12]", "3 [2, 5] · expected median >=1 ✓", "1.5 [0.5, 3]", "0", "4", "13 [12, 14] · expected median >=12 ✓"},
		{"etcd-raft/pre-vote", "sim", "5", "3", "1", "0 · expected max <=0 ✗", "0", "0", "0", "1"},
		{"bully/classic", "sim", "5", "3", "-", "-", "-", "-", "-", "-"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("matrix:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(sec, `<tr class="bad">`) || strings.Count(sec, `class="n bad"`) != 1 {
		t.Error("the failed condition does not mark its cell and row")
	}
	if !strings.Contains(sec, "No time-line of etcd-raft/plain, etcd-raft/pre-vote, bully/classic: the report was given no trace") {
		t.Error("without a trace the section does not say there is no time-line")
	}
	if incidentSection(t, incidentRows(), HTMLOptions{}) != "" {
		t.Error("an incident view without HTMLOptions.Incident")
	}
}

// The spans of leadership read off the trace: p0's term 1 ends at its
// last heartbeat before its crash, and p1 and p2 lead at once.
func TestLeadBands(t *testing.T) {
	trials, err := readTrace(strings.NewReader(incidentTrace()), func(TraceHeader) (traceWant, bool) {
		return traceWant{around: -1, lead: func(ev *TraceEvent) bool { return ev.Ev == "crash" || ev.Kind == "HEARTBEAT" }}, true
	})
	if err != nil {
		t.Fatal(err)
	}
	got := leadBands(trials[0].Leads)
	want := []leadBand{{0, 1, 10e6, 40e6}, {1, 2, 60e6, 100e6}, {2, 3, 60e6, 70e6}}
	if !slices.Equal(got, want) {
		t.Errorf("bands %v, want %v", got, want)
	}
	if trials[0].End != 100e6 {
		t.Errorf("end %d, want 100ms", trials[0].End)
	}
}

// The incident section with a trace, as a golden fragment: the matrix, the
// time-line of plain's trial 0, and one line for the configurations the
// trace lacks.
func TestIncidentSectionGolden(t *testing.T) {
	sec := incidentSection(t, incidentRows(), incidentOptions(incidentTrace()))
	golden(t, "incident.html.golden", []byte(sec))
	for _, want := range []string{"p2 led in term 3 from 60T to 70T", "No time-line of etcd-raft/pre-vote, bully/classic:"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the section lacks %q", want)
		}
	}
}

// Where failover is shown, the disruption figures are too, only those a
// trial has: in the key numbers, the failover table and the summary.
func TestFailoverShowsDisruptions(t *testing.T) {
	rows := incidentRows()[:3] // plain's
	for i := range rows {
		rows[i].FailoverS, rows[i].FailoverT = Some(0.01), Some(10.0)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	key := tableTexts(t, page, "key-table")
	if got := key[0][len(key[0])-6:]; !slices.Equal(got, []string{"failover (T)", "elections", "disruptions", "leaderless_t", "stale_leader_s", "term_inflation"}) {
		t.Errorf("key table ends with %q", got)
	}
	if got := key[1][len(key[1])-5:]; !slices.Equal(got, []string{"11 [10, 12]", "3 [2, 5]", "1.5 [0.5, 3]", "0", "4"}) {
		t.Errorf("key table's disruption cells %q", got)
	}
	if sum := tableTexts(t, page, "summary-table"); sum[0][len(sum[0])-1] != "term_inflation" || sum[1][len(sum[1])-4] != "3 [2, 5]" {
		t.Errorf("the summary table's disruption figures: %q, %q", sum[0], sum[1])
	}
	sec := page[strings.Index(page, `<section id="failover">`):]
	if !strings.Contains(sec[:strings.Index(sec, "</section>")], `<th>disruptions</th>`) {
		t.Error("the failover table lacks the disruptions")
	}
	if strings.Contains(page, "heal_disruptions") {
		t.Error("a figure no trial has is shown")
	}
}

// A size the rows and trace claim is not drawn lane by lane (issue 39 item
// 9: fifty million lanes): the time-line says why instead.
func TestLeadershipTimelineBounded(t *testing.T) {
	const n = 50_000_000
	rows := incidentRows()
	for i := range rows {
		rows[i].Nodes = n
	}
	trace := strings.Replace(incidentTrace(), `"nodes":5`, `"nodes":50000000`, 1)
	sec := incidentSection(t, rows, incidentOptions(trace))
	if !strings.Contains(sec, "Not drawn: 50000000 processes") || len(sec) > 1<<20 {
		t.Errorf("a %d-process time-line: %d bytes, note present %v", n, len(sec), strings.Contains(sec, "Not drawn"))
	}
}

// A server's messages are not visible (Row.Unseen): its time-line, drawn
// from leader messages, would say nobody led, so the section says why
// there is none instead.
func TestLeadershipTimelineUnseen(t *testing.T) {
	rows := incidentRows()
	for i := range rows {
		rows[i].Unseen = true
	}
	sec := incidentSection(t, rows, incidentOptions(incidentTrace()))
	if !strings.Contains(sec, "servers run from outside, whose messages are not visible") || strings.Contains(sec, "No process led") {
		t.Errorf("the incident section of unseen rows does not say why it has no time-line:\n%s", sec)
	}
}
