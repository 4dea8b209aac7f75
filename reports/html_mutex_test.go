package reports

import (
	"bytes"
	"strings"
	"testing"
)

// The report's mutual-exclusion section appears for mutual-exclusion rows
// only, with their medians.
func TestHTMLMutexSection(t *testing.T) {
	row := func(alg string, trial int, client float64) Row {
		return Row{Algorithm: alg, Variant: "basic", Runtime: "sim", Scenario: "adhoc", Nodes: 16, Trial: trial, Latency: "1ms", TS: 0.001,
			Correct: true, Live: true, Entries: Some(int64(4)), EntryMessages: Some(12.0), ExitMessages: Some(6.0),
			ClientDelayT: Some(client), SyncDelayT: Some(2.0), Throughput: Some(250.0), VotingSet: Some(int64(6))}
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, RowsOf([]Row{row("maekawa", 0, 2), row("maekawa", 1, 4), row("maekawa", 2, 9)}), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	// The client delays 2, 4 and 9 have the median 4: only the table's
	// median can put data-v="4" in the client delay column.
	table := html[strings.Index(html, `id="mutex-table"`):]
	table = table[:strings.Index(table, "</table>")]
	if !strings.Contains(table, `data-v="4">4</td><td class="n" data-v="2">2</td>`) {
		t.Errorf("mutex table %s: want the client delay median 4 before the sync delay 2", table)
	}
	for _, want := range []string{`id="mutex"`, `href="#mutex"`, "Mutual exclusion", `id="mutex-table"`, `data-v="12">12<`, `data-v="6">6<`, `data-v="250">250<`} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	b.Reset()
	if err := WriteHTML(&b, RowsOf([]Row{{Algorithm: "lcr", Runtime: "sim", Scenario: "adhoc", Nodes: 4, Correct: true, Live: true, Latency: "1ms", TS: 0.001}}), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="mutex"`) {
		t.Error("an election-only report has a mutual-exclusion section")
	}
}
