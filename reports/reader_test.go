package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// rowsEqual reports whether two rows are the same as a results file holds
// them: every cell alike (so unset optionals and empty counts compare by
// what they mean, and NaN equals NaN).
func rowsEqual(a, b Row) bool { return slices.Equal(a.cells(), b.cells()) }

func TestReadCSVRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, sampleRows()); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleRows()
	if len(got) != len(want) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(want))
	}
	for i := range got {
		if !rowsEqual(got[i], want[i]) {
			t.Errorf("row %d:\n got %q\nwant %q", i, got[i].cells(), want[i].cells())
		}
		if got[i].Key() != want[i].Key() {
			t.Errorf("row %d key %v, want %v", i, got[i].Key(), want[i].Key())
		}
	}
}

// Columns are found by name, in any order.
func TestReadCSVColumnOrder(t *testing.T) {
	rows := sampleRows()
	perm := rand.New(rand.NewPCG(1, 2)).Perm(len(Columns))
	shuffle := func(rec []string) []string {
		out := make([]string, len(rec))
		for i, p := range perm {
			out[i] = rec[p]
		}
		return out
	}
	var b bytes.Buffer
	b.Write(encodeRecord(shuffle(Columns)))
	for _, r := range rows {
		b.Write(encodeRecord(shuffle(r.cells())))
	}
	got, err := ReadCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if !rowsEqual(got[i], rows[i]) {
			t.Errorf("row %d differs after shuffling columns", i)
		}
	}
}

func TestReadCSVTolerates(t *testing.T) {
	r := sampleRows()[0]
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"byte order mark", "\uFEFF" + string(header()) + string(encodeRecord(r.cells()))},
		{"unknown column", strings.TrimSuffix(string(header()), "\n") + ",future\n" +
			strings.TrimSuffix(string(encodeRecord(r.cells())), "\n") + ",42\n"},
		{"CRLF line ends", strings.ReplaceAll(string(header())+string(encodeRecord(r.cells())), "\n", "\r\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadCSV(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || !rowsEqual(got[0], r) {
				t.Errorf("got %+v", got)
			}
		})
	}
	// An older file without the later columns reads them as zero values.
	old := Columns[:StableColumns]
	in := string(encodeRecord(old)) + string(encodeRecord(r.cells()[:StableColumns]))
	got, err := ReadCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := r
	want.Latency, want.TS, want.Events = "", 0, 0
	if len(got) != 1 || !rowsEqual(got[0], want) {
		t.Errorf("older file: got %+v", got)
	}
}

// Errors name the line and the column of the bad cell.
func TestReadCSVErrors(t *testing.T) {
	good := string(encodeRecord(sampleRows()[0].cells()))
	withCell := func(col, value string) string {
		cells := sampleRows()[0].cells()
		cells[slices.Index(Columns, col)] = value
		return string(header()) + good + string(encodeRecord(cells))
	}
	for _, tc := range []struct {
		name   string
		in     string
		line   int
		column string
		msg    string
	}{
		{"empty", "", 1, "", "no header"},
		{"missing column", "algorithm,variant\n", 1, "", `lacks column "runtime"`},
		{"duplicate column", "algorithm,algorithm\n", 1, "", `column "algorithm" twice`},
		{"bad int", withCell("nodes", "eight"), 3, "nodes", `not an integer: "eight"`},
		{"empty int", withCell("nodes", ""), 3, "nodes", "empty cell"},
		{"negative seed", withCell("seed", "-1"), 3, "seed", "not an unsigned integer"},
		{"bad float", withCell("turnaround_t", "1,5"), 3, "turnaround_t", `not a number: "1,5"`},
		{"bad bool", withCell("correct", "yes"), 3, "correct", "not true or false"},
		{"bad counts", withCell("messages_by_kind", "ELECTION:3"), 3, "messages_by_kind", "not KIND=n"},
		{"bad optional int", withCell("theory_messages", "4.5"), 3, "theory_messages", "not an integer"},
		{"field count", string(header()) + good + "lcr,x\n", 3, "", "wrong number of fields"},
		{"bare quote", string(header()) + good + "lc\"r\n", 3, "", "bare"},
		// A quoted newline in line 2 moves the bad cell of the next record to line 4.
		{"after a multi-line cell", string(header()) + string(encodeRecord(sampleRows()[9].cells())) +
			strings.Replace(good, ",44,", ",x,", 1), 4, "messages", "not an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a ParseError", err)
			}
			if pe.Line != tc.line || pe.Column != tc.column || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %q (line %d, column %q); want line %d, column %q, saying %q",
					err, pe.Line, pe.Column, tc.line, tc.column, tc.msg)
			}
		})
	}
}

func TestKey(t *testing.T) {
	a := sampleRows()[0]
	b := a
	b.Messages, b.Error, b.TurnaroundT = 99, "failed", Opt[float64]{}
	if a.Key() != b.Key() {
		t.Error("results changed the key")
	}
	for name, change := range map[string]func(*Row){
		"algorithm": func(r *Row) { r.Algorithm = "x" }, "variant": func(r *Row) { r.Variant = "x" },
		"runtime": func(r *Row) { r.Runtime = "x" }, "scenario": func(r *Row) { r.Scenario = "x" },
		"nodes": func(r *Row) { r.Nodes++ }, "arrangement": func(r *Row) { r.Arrangement = "x" },
		"initiators": func(r *Row) { r.Initiators = "x" }, "latency": func(r *Row) { r.Latency = "x" },
		"trial": func(r *Row) { r.Trial++ }, "seed": func(r *Row) { r.Seed++ },
	} {
		c := a
		change(&c)
		if c.Key() == a.Key() {
			t.Errorf("%s is not part of the key", name)
		}
	}
	if got := a.Key().String(); got != "lcr/ sim adhoc n=8 random all 1ms trial=0 seed=9223372036854775808" {
		t.Errorf("Key.String() = %q", got)
	}
}

// A server's messages are not visible (docs/SERVERS.md): its messages,
// bytes and timeouts cells are empty, not 0, they read back as unseen,
// and the summary's message figures leave the row out.
func TestUnseenMessagesAreNA(t *testing.T) {
	rows := sampleRows()[:2]
	rows[1].Unseen = true
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Unseen || !got[1].Unseen {
		t.Fatalf("read back Unseen %v, %v; want false, true", got[0].Unseen, got[1].Unseen)
	}
	header := Columns
	for _, name := range []string{"messages", "bytes", "timeouts"} {
		i := slices.Index(header, name)
		if c := got[1].cells()[i]; c != "" {
			t.Errorf("unseen row's %s cell %q; want empty", name, c)
		}
		if c := got[0].cells()[i]; c == "" {
			t.Errorf("seen row's %s cell is empty", name)
		}
	}
	rows[0].Scenario, rows[1].Scenario = "a", "b" // two groups
	for _, g := range Summarize(rows) {
		if set := g.Messages.Median.IsSet(); set == (g.Scenario == "b") {
			t.Errorf("group %s: messages median set %v", g.Scenario, set)
		}
	}
}

// A key's hash is of fmt's "%q %q %q %q %d %q %q %q %d %d" of its fields,
// as the shards' manifests written before it was built by strconv hold
// it: quotes, backslashes, other scripts, bytes that are not UTF-8, signs
// and the largest seed hash the same.
func TestKeyHashIsFmtsQuoting(t *testing.T) {
	keys := []Key{
		{Algorithm: "raft", Variant: "classic", Runtime: "sim", Scenario: "adhoc", Nodes: 5, Arrangement: "ring",
			Initiators: "lowest", Latency: "uniform(1ms,5ms)", Trial: 3, Seed: 42},
		{Algorithm: `a"b\c`, Variant: "é中\t\n", Runtime: "\xff\xfe", Scenario: "", Nodes: -1, Arrangement: "\x00",
			Initiators: "all", Latency: "1ms", Trial: -7, Seed: ^uint64(0)},
		{Scenario: strings.Repeat("long scenario name ", 30), Nodes: 1 << 40},
	}
	for _, k := range keys {
		sum := sha256.Sum256(fmt.Appendf(nil, "%q %q %q %q %d %q %q %q %d %d",
			k.Algorithm, k.Variant, k.Runtime, k.Scenario, k.Nodes, k.Arrangement, k.Initiators, k.Latency, k.Trial, k.Seed))
		if want := hex.EncodeToString(sum[:KeyHashLen/2]); k.KeyHash() != want {
			t.Errorf("%v: KeyHash %s, want %s", k, k.KeyHash(), want)
		}
	}
}

func BenchmarkKeyHash(b *testing.B) {
	k := Key{Algorithm: "chang-roberts", Variant: "classic", Runtime: "sim", Scenario: "adhoc", Nodes: 64,
		Arrangement: "ring", Initiators: "lowest", Latency: "uniform(1ms,5ms)", Trial: 12345, Seed: 987654321}
	b.ReportAllocs()
	for b.Loop() {
		_ = k.KeyHash()
	}
}
