package live

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

func stepLines() [][]byte {
	steps := []step{
		{ev: "start"},
		{ev: "initiate", sent: []Sent{{To: 1, Kind: 3, Bytes: 5}, {To: 2, Kind: 3, Bytes: 5, Dropped: true}}, armed: 1},
		{ev: "recv", kind: 7, peer: 3, a: 7, b: -1, sent: []Sent{{To: 3, Kind: 65535, Bytes: 9, A: 7, B: 2}}, decide: []string{"12", "3/ab"}},
		{ev: "recv", kind: 2, peer: 1, sent: []Sent{{To: 2, Kind: 2, Bytes: 40, Rank: "1/f00d", Aux: "12"}, {To: 0, Kind: 2, Bytes: 3, Aux: "7", Dropped: true}},
			decide: []string{"f00d", "1/f00d"}, decideAfter: []int{0, 2}},
		{ev: "timer", timer: 4, armed: 2, phase: "Normal"},
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
	if r, _ := ParseReport(lines[2]); r.DecideAfter != nil || r.Kind != 7 || len(r.Sent) != 1 || r.Sent[0].Kind != 65535 || r.Sent[0].A != 7 || r.B != -1 || len(r.Decide) != 2 {
		t.Errorf("recv step: %+v", r)
	}
	if r, _ := ParseReport(lines[3]); len(r.Sent) != 2 || r.Sent[0].Rank != "1/f00d" || r.Sent[0].Aux != "12" || r.Sent[1].Aux != "7" || !r.Sent[1].Dropped ||
		!slices.Equal(r.DecideAfter, []int{0, 2}) {
		t.Errorf("traced step: %+v", r)
	}
	if r, _ := ParseReport(lines[4]); r.Timer != 4 {
		t.Errorf("timer step: %+v", r)
	}
	// What encoding/json refuses for a kind or a timer, the fast path
	// leaves to it: a sign, even on zero, or more than 16 bits.
	for _, line := range []string{
		`{"type":"step","ev":"recv","kind":-0}`, `{"type":"step","ev":"recv","kind":65536}`,
		`{"type":"step","ev":"timer","timer":-1}`, `{"type":"step","sent":[{"to":1,"k":-0}]}`,
	} {
		if _, err := ParseReport([]byte(line)); err == nil {
			t.Errorf("%s: accepted", line)
		}
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
	f.Add([]byte(`{"type":"link","peer":4}`))
	f.Add([]byte(`{"type":"step","ev":"recv","kind":-0,"sent":[{"to":1,"k":70000,"r":"1/ab","x":""}]}`))
	f.Add([]byte(`{"type":"hello","kinds":["ELECTION","OK"],"timers":["T1"]}`))
	f.Add([]byte(`{"type":"hello","eph":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=","cert":"!!"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, err := ParseReport(line)
		var want Report
		werr := json.Unmarshal(line, &want)
		if (err == nil) != (werr == nil) || err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v (%v)\nwant %+v (%v)", line, got, err, want, werr)
		}
	})
}
