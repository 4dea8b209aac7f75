package reports

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

// A row's line is the bytes encoding/csv writes for its cells, and the row
// read back from it writes the same line again: quoting (comma, quote, CR,
// LF, a leading space, `\.`), Printable's escapes, options at the edges of
// their domain (-0, 2⁶⁰), empty counts and an Unseen row's counts included.
func TestAppendCSVLine(t *testing.T) {
	for i, r := range edgeRows() {
		checkCSVLine(t, i, r)
	}
}

// edgeRows are sampleRows and rows at the edges of what a line holds.
func edgeRows() []Row {
	rows := sampleRows()
	odd := rows[0]
	odd.Error, odd.Leader, odd.Variant = "a,\"b\"\r\nc\x1b[31m", " lead", `\.`
	odd.Violation, odd.Faults = "\u00a0nbsp", "é,\u202e"
	odd.TurnaroundS, odd.Terms = Some(math.Copysign(0, -1)), Some(int64(1)<<60)
	odd.MessagesByKind, odd.TimeoutsByKind = Counts{}, Counts{{"K,\x1b", 2}, {"L", 3}}
	unseen := rows[1]
	unseen.Unseen, unseen.Messages, unseen.Bytes, unseen.Timeouts = true, 4, 5, 6
	// NaN of any payload reads back quiet; infinities and -0 as they are.
	nan := rows[0]
	nan.TS, nan.DS = math.Float64frombits(0x7ff8_0000_0000_0042), math.Inf(-1)
	nan.DecidedS, nan.FailoverT = Some(math.Float64frombits(0x7ff4_0000_0000_0001)), Some(math.Inf(1))
	nan.Algorithm, nan.TermLeaders, nan.MessagesByKind = "=bad\xffutf8", "1=\u200f", Counts{{"\xfe", 1}}
	return append(rows, odd, unseen, nan)
}

func checkCSVLine(t *testing.T, i int, r Row) {
	t.Helper()
	line := r.appendCSVLine(nil)
	if want := encodeRecord(r.cells()); !bytes.Equal(line, want) {
		t.Errorf("row %d: line\n%q\nencoding/csv writes\n%q", i, line, want)
	}
	read, err := ReadCSV(bytes.NewReader(append(header(), line...)))
	if err != nil || len(read) != 1 {
		t.Fatalf("row %d: line %q reads back as %d rows: %v", i, line, len(read), err)
	}
	if again := read[0].appendCSVLine(nil); !bytes.Equal(again, line) {
		t.Errorf("row %d: line\n%q\nread back and written again\n%q", i, line, again)
	}
	// What a Writer hands its Rows is the row read back.
	r.asRead()
	if !sameRow(r, read[0]) {
		t.Errorf("row %d: as read\n%+v\nread back\n%+v", i, r, read[0])
	}
}

// sameRow is reflect.DeepEqual with the float64 fields compared by their
// bits, so that a NaN equals its copy.
func sameRow(a, b Row) bool {
	if math.Float64bits(a.TS) != math.Float64bits(b.TS) || math.Float64bits(a.DS) != math.Float64bits(b.DS) {
		return false
	}
	a.TS, a.DS, b.TS, b.DS = 0, 0, 0, 0
	return reflect.DeepEqual(a, b)
}

// FuzzCSVLine checks TestAppendCSVLine's two equalities on rows of fuzzed
// text and numbers.
func FuzzCSVLine(f *testing.F) {
	f.Add("lcr", " x", "a\"b", "\r\n", "K,=", 3, int64(-1), 0.25, true, false)
	f.Add(`\.`, "\x1b[0m", "\u202e", "", "", -7, int64(math.MaxInt64), -0.0, false, true)
	f.Fuzz(func(t *testing.T, alg, variant, leader, errText, kind string, nodes int, msgs int64, v float64, set, unseen bool) {
		r := Row{Algorithm: alg, Variant: variant, Leader: leader, Error: errText, Nodes: nodes,
			Messages: msgs, TS: v, Unseen: unseen}
		if set {
			r.TurnaroundT = Some(v)
		} else if OptHolds(msgs) {
			r.Terms = Some(msgs)
		}
		if checkCounts("", Counts{{kind, msgs}}) == nil {
			r.MessagesByKind = Counts{{kind, msgs}}
		}
		checkCSVLine(t, 0, r)
	})
}
