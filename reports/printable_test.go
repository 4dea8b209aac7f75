package reports

import (
	"bytes"
	"strings"
	"testing"
)

// Text from outside reaches the terminal and results.csv visibly, never as an escape
// sequence (issue 39 item 14: a name with ESC [ 2 J cleared the screen of
// whoever read run's table or compare's verdicts).
func TestTerminalTextCarriesNoEscapes(t *testing.T) {
	hostile := "x\x1b[2J\x07\u202e\x9b\xff"
	for _, tc := range []struct{ in, want string }{
		{"plain name-1", "plain name-1"},
		{"two\nlines", "two\nlines"},
		{hostile, `x\x1b[2J\a\u202e` + "\uFFFD\uFFFD"},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	rows := []Row{{Algorithm: hostile, Variant: "default", Runtime: "sim", Scenario: hostile, Nodes: 3, Error: hostile}}
	var b bytes.Buffer
	if err := WriteTable(&b, Summarize(rows), TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFailingTrials(&b, RowsOf(rows), 10, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareText(&b, Comparison{Changes: []Change{{Verdict: Regression, Algorithm: hostile, Kind: KindMedian}}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, `x\x1b[2J`) {
		t.Errorf("terminal output carries an escape or lost the text:\n%q", out)
	}
}
