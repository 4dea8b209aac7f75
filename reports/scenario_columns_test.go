package reports

import (
	"bytes"
	"strings"
	"testing"
)

// The scenario columns (issue "Chaos scenario files"): the fault schedule a
// trial applied and the verdict on its expectations round-trip through CSV
// and JSON, quoting included.
func TestScenarioColumnsRoundTrip(t *testing.T) {
	rows := sampleRows()[:2]
	rows[0].Scenario = "ring-crash"
	rows[0].Faults = "t=0s:partition(halves)[0,1|2,3];t=2ms:crash(3);t=12ms:restart(3)"
	rows[0].Expect = `fail: liveness within 50T: "undecided", seed 7`
	rows[1].Expect = "pass"
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if got[i].Faults != rows[i].Faults || got[i].Expect != rows[i].Expect {
			t.Errorf("row %d: faults %q expect %q", i, got[i].Faults, got[i].Expect)
		}
	}
	var js bytes.Buffer
	w := &js
	for i := range rows {
		w.Write(rows[i].appendJSON(nil))
	}
	if !strings.Contains(js.String(), `"faults":"t=0s:partition(halves)[0,1|2,3];t=2ms:crash(3);t=12ms:restart(3)","expect":"fail: liveness within 50T: \"undecided\", seed 7"`) {
		t.Errorf("JSON: %s", js.String())
	}
}
