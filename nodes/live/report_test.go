package live

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func stepLines() [][]byte {
	steps := []step{
		{ev: "start"},
		{ev: "initiate", sent: []Sent{{To: 1, Kind: "ELECTION", Bytes: 5}, {To: 2, Kind: "ELECTION", Bytes: 5, Dropped: true}}, armed: 1},
		{ev: "recv", kind: "VOTE", peer: 3, a: 7, b: -1, sent: []Sent{{To: 3, Kind: "HEARTBEAT", Bytes: 9, A: 7, B: 2}}, decide: []string{"12", "3/ab"}},
		{ev: "timer", kind: "T1", armed: 2, phase: "Normal"},
		{ev: "suspect", peer: 0, phase: "with \"quotes\" and é"},
	}
	var out [][]byte
	for i, s := range steps {
		line := appendStep(nil, time.Duration(i)*time.Millisecond, &s)
		out = append(out, bytes.TrimSuffix(line, []byte("\n")))
	}
	return out
}

// Every step line the runtime writes reads back, on the fast path or not,
// exactly as encoding/json reads it.
func TestParseReportSteps(t *testing.T) {
	lines := stepLines()
	hello, _ := json.Marshal(Report{Type: "hello", Addr: "127.0.0.1:1", Identity: "{}", PID: 7})
	stats, _ := json.Marshal(Report{Type: "stats", Stats: &Stats{Sent: map[string]int64{"OK": 1}}})
	for _, line := range append(lines, hello, stats) {
		got, err := ParseReport(line)
		var want Report
		werr := json.Unmarshal(line, &want)
		if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v (%v)\nwant %+v (%v)", line, got, err, want, werr)
		}
	}
	if r, _ := ParseReport(lines[2]); len(r.Sent) != 1 || r.Sent[0].A != 7 || r.B != -1 || len(r.Decide) != 2 {
		t.Errorf("recv step: %+v", r)
	}
}

// FuzzParseReport: the fast path never disagrees with encoding/json, on
// anything.
func FuzzParseReport(f *testing.F) {
	for _, l := range stepLines() {
		f.Add(l)
	}
	f.Add([]byte(`{"type":"step","t":-0,"sent":[],"decide":[]}`))
	f.Add([]byte(`{"type":"step","t":01}`))
	f.Add([]byte(`{"type":"linked","up":3}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, err := ParseReport(line)
		var want Report
		werr := json.Unmarshal(line, &want)
		if (err == nil) != (werr == nil) || err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v (%v)\nwant %+v (%v)", line, got, err, want, werr)
		}
	})
}
