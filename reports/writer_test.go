package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeAll writes rows into a fresh directory and returns it.
func writeAll(t *testing.T, rows []Row, formats ...string) string {
	t.Helper()
	dir := t.TempDir()
	w, err := NewWriter(dir, formats, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriterGolden(t *testing.T) {
	dir := writeAll(t, sampleRows(), "csv", "json")
	golden(t, "results.csv.golden", readFile(t, filepath.Join(dir, ResultsCSV)))
	golden(t, "results.jsonl.golden", readFile(t, filepath.Join(dir, ResultsJSONL)))
}

func TestWriterDeterministic(t *testing.T) {
	a := writeAll(t, sampleRows(), "json")
	b := writeAll(t, sampleRows(), "json")
	for _, name := range []string{ResultsCSV, ResultsJSONL} {
		if !bytes.Equal(readFile(t, filepath.Join(a, name)), readFile(t, filepath.Join(b, name))) {
			t.Errorf("%s differs between two writes of the same rows", name)
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, sampleRows()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), readFile(t, filepath.Join(a, ResultsCSV))) {
		t.Error("WriteCSV and Writer disagree")
	}
}

func TestWriterJSONL(t *testing.T) {
	dir := writeAll(t, sampleRows(), "csv", "json")
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, filepath.Join(dir, ResultsJSONL))), "\n"), "\n")
	if len(lines) != len(sampleRows()) {
		t.Fatalf("%d JSON lines for %d rows", len(lines), len(sampleRows()))
	}
	var first map[string]any
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.UseNumber()
	if err := dec.Decode(&first); err != nil {
		t.Fatal(err)
	}
	if len(first) != len(Columns) {
		t.Errorf("%d keys, want one per column (%d)", len(first), len(Columns))
	}
	for _, c := range Columns {
		if _, ok := first[c]; !ok {
			t.Errorf("key %q missing", c)
		}
	}
	if got := first["seed"].(json.Number).String(); got != "9223372036854775808" {
		t.Errorf("seed = %s, want the exact uint64", got)
	}
	if got := first["turnaround_t"].(json.Number).String(); got != "11" {
		t.Errorf("turnaround_t = %s, want 11", got)
	}
	if first["detect_s"] != nil {
		t.Errorf("unset detect_s = %v, want null", first["detect_s"])
	}
	if got := first["messages_by_kind"]; !reflect.DeepEqual(got, map[string]any{"ELECTED": json.Number("8"), "ELECTION": json.Number("36")}) {
		t.Errorf("messages_by_kind = %v", got)
	}
}

// A run killed between trials keeps every row already written.
func TestWriterFlushesEachRow(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir, []string{"csv", "json"}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i, r := range sampleRows()[:3] {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		rows, err := ReadFile(filepath.Join(dir, ResultsCSV))
		if err != nil {
			t.Fatalf("after row %d: %v", i, err)
		}
		if len(rows) != i+1 || !rowsEqual(rows[i], r) {
			t.Fatalf("after row %d the file holds %d rows", i, len(rows))
		}
		if n := bytes.Count(readFile(t, filepath.Join(dir, ResultsJSONL)), []byte("\n")); n != i+1 {
			t.Fatalf("after row %d results.jsonl holds %d lines", i, n)
		}
	}
}

// Queued rows reach the files at Flush, all at once, in the order queued,
// and nothing before: a killed run loses them (and --resume runs their
// trials again), never a row already flushed. Close flushes what is left;
// a batch past maxPending is written without waiting for Flush.
func TestWriterQueuesUntilFlush(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir, []string{"csv", "json"}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := func() (csvLines, jsonLines int) {
		return bytes.Count(readFile(t, filepath.Join(dir, ResultsCSV)), []byte("\n")) - 1,
			bytes.Count(readFile(t, filepath.Join(dir, ResultsJSONL)), []byte("\n"))
	}
	rows := sampleRows()
	for _, r := range rows[:2] {
		if err := w.Queue(r); err != nil {
			t.Fatal(err)
		}
	}
	if c, j := lines(); c != 0 || j != 0 {
		t.Fatalf("before Flush: %d rows, %d JSON lines in the files, want none", c, j)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if c, j := lines(); c != 2 || j != 2 {
		t.Fatalf("after Flush: %d rows, %d JSON lines, want 2", c, j)
	}
	if err := w.Queue(rows[2]); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows[3]); err != nil { // flushes the queued row before it
		t.Fatal(err)
	}
	if c, j := lines(); c != 4 || j != 4 {
		t.Fatalf("after Write: %d rows, %d JSON lines, want 4", c, j)
	}
	queued := 0
	for c, _ := lines(); c == 4; c, _ = lines() {
		if err := w.Queue(rows[queued%len(rows)]); err != nil {
			t.Fatal(err)
		}
		queued++
	}
	if perRow := maxPending / queued; queued < 2 || perRow < 100 {
		t.Fatalf("written unflushed after %d rows, want a batch of about %d bytes", queued, maxPending)
	}
	if err := w.Queue(rows[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(filepath.Join(dir, ResultsCSV))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4+queued+1 {
		t.Fatalf("after Close: %d rows, want %d", len(got), 4+queued+1)
	}
	for i, want := range append(slices.Clone(rows[:4]), rows[0]) {
		at := i
		if i == 4 {
			at = len(got) - 1
		}
		if !rowsEqual(got[at], want) {
			t.Errorf("row %d = %+v, want %+v", at, got[at], want)
		}
	}
}

func TestWriterRejects(t *testing.T) {
	if _, err := NewWriter(t.TempDir(), []string{"xml"}, WriterOptions{}); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("unknown format: err = %v", err)
	}
	w, err := NewWriter(t.TempDir(), nil, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad := sampleRows()[0]
	bad.MessagesByKind = Counts{{"A;B", 1}}
	if err := w.Write(bad); err == nil || !strings.Contains(err.Error(), "messages_by_kind") {
		t.Errorf("bad kind name: err = %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Write(sampleRows()[0]); err == nil {
		t.Error("Write after Close succeeded")
	}
}

// resume appends rows to dir with the Append option and returns the keys
// of the rows it kept.
func resume(t *testing.T, dir string, rows []Row, formats ...string) *KeySet {
	t.Helper()
	w, err := NewWriter(dir, formats, WriterOptions{Append: true})
	if err != nil {
		t.Fatal(err)
	}
	kept := w.Done()
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return kept
}

func TestWriterAppend(t *testing.T) {
	all := sampleRows()
	want := writeAll(t, all, "json")
	for _, tc := range []struct {
		name string
		cut  func(csv []byte) []byte // damage done to results.csv by the crash
		kept int
	}{
		{"clean", func(b []byte) []byte { return b }, 5},
		{"cut mid-line", func(b []byte) []byte { return append(b, "lcr,,sim,adhoc,8,ran"...) }, 5},
		{"cut before newline", func(b []byte) []byte {
			line := encodeRecord(all[5].cells())
			return append(b, line[:len(line)-1]...)
		}, 5},
		{"cut inside a quoted newline", func(b []byte) []byte {
			line := encodeRecord(all[9].cells()) // its violation holds a newline
			i := bytes.Index(line, []byte("\n"))
			return append(b, line[:i+1]...)
		}, 5},
		{"cut in the header", func([]byte) []byte { return []byte("algorithm,variant,run") }, 0},
		{"empty", func([]byte) []byte { return nil }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeAll(t, all[:5], "json")
			path := filepath.Join(dir, ResultsCSV)
			if err := os.WriteFile(path, tc.cut(readFile(t, path)), 0o644); err != nil {
				t.Fatal(err)
			}
			kept := resume(t, dir, all[tc.kept:], "json")
			if kept.Len() != tc.kept {
				t.Fatalf("kept %d rows, want %d", kept.Len(), tc.kept)
			}
			for i := range all {
				if kept.Has(all[i].Key()) != (i < tc.kept) {
					t.Errorf("row %d kept: %v, want %v", i, kept.Has(all[i].Key()), i < tc.kept)
				}
			}
			for _, name := range []string{ResultsCSV, ResultsJSONL} {
				if !bytes.Equal(readFile(t, filepath.Join(dir, name)), readFile(t, filepath.Join(want, name))) {
					t.Errorf("%s after resume differs from an uninterrupted run", name)
				}
			}
		})
	}
}

func TestWriterAppendNoFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	if kept := resume(t, dir, sampleRows()); kept.Len() != 0 {
		t.Errorf("kept %d rows from nothing", kept.Len())
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, ResultsCSV)), readFile(t, filepath.Join(writeAll(t, sampleRows()), ResultsCSV))) {
		t.Error("appending to nothing differs from a fresh run")
	}
}

func TestWriterAppendHeaderMismatch(t *testing.T) {
	for _, tc := range []struct {
		name, header, want string
	}{
		{"renamed", strings.Replace(string(header()), "nodes", "n", 1), `header column 5 is "n", this build writes "nodes"`},
		{"other file", "name,value\n", `header column 1 is "name"`},
		{"too short", "algorithm,variant\n", "not a results file"},
		{"newer", strings.TrimSuffix(string(header()), "\n") + ",extra\n", "newer electbench"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ResultsCSV)
			if err := os.WriteFile(path, []byte(tc.header), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := NewWriter(dir, nil, WriterOptions{Append: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want one naming %s and saying %q", err, path, tc.want)
			}
			if got := string(readFile(t, path)); got != tc.header {
				t.Errorf("the refused file was changed to %q", got)
			}
		})
	}
}

// A corrupt row in the middle is damage, not a crash: refuse to append.
func TestWriterAppendCorrupt(t *testing.T) {
	dir := writeAll(t, sampleRows()[:3])
	path := filepath.Join(dir, ResultsCSV)
	damaged := bytes.Replace(readFile(t, path), []byte(",44,"), []byte(",4x4,"), 1)
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewWriter(dir, nil, WriterOptions{Append: true})
	if err == nil || !strings.Contains(err.Error(), "line 2, column messages") {
		t.Fatalf("err = %v, want a ParseError at line 2, column messages", err)
	}
}

// A results file from a build with fewer columns is upgraded in place.
func TestWriterAppendOlderHeader(t *testing.T) {
	rows := sampleRows()
	old := Columns[:StableColumns+3]
	var b bytes.Buffer
	b.Write(encodeRecord(old))
	for _, r := range rows[:4] {
		b.Write(encodeRecord(r.cells()[:len(old)]))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ResultsCSV), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := resume(t, dir, rows[4:])
	got, err := ReadFile(filepath.Join(dir, ResultsCSV))
	if err != nil {
		t.Fatal(err)
	}
	if kept.Len() != 4 || len(got) != len(rows) {
		t.Fatalf("kept %d, file holds %d rows; want 4 and %d", kept.Len(), len(got), len(rows))
	}
	for i := range got {
		want := rows[i]
		if i < 4 {
			// The old file had no columns after split_votes.
			want.TheoryBound, want.Latency, want.TS, want.Events, want.Violation = Opt[int64]{}, "", 0, 0, ""
		}
		if !rowsEqual(got[i], want) {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want)
		}
	}
}

// The upgrade of an older file writes each kept record, read again one at
// a time, as encoding/csv writes the record padded with a zero Row's new
// cells: quoted cells that hold commas, quotes and newlines come out as
// they went in, and a last line cut by a crash is left out.
func TestWriterUpgradeBytes(t *testing.T) {
	rows := sampleRows()
	rows[1].Error = "node 3: \"refused\", then\nexited"
	old := Columns[:StableColumns+3]
	zero := (&Row{}).cells()[len(old):]
	var in, want bytes.Buffer
	in.Write(encodeRecord(old))
	want.Write(header())
	for _, r := range rows[:5] {
		rec := r.cells()[:len(old)]
		in.Write(encodeRecord(rec))
		want.Write(encodeRecord(slices.Concat(rec, zero)))
	}
	cut := encodeRecord(rows[5].cells()[:len(old)])
	in.Write(cut[:len(cut)/2])
	dir := t.TempDir()
	path := filepath.Join(dir, ResultsCSV)
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if kept := resume(t, dir, nil); kept.Len() != 5 {
		t.Fatalf("kept %d rows, want 5", kept.Len())
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("upgraded file:\n%s\nwant:\n%s", got, want.Bytes())
	}
}

// Trials finish on many goroutines; each row still lands whole on its line.
func TestWriterConcurrent(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir, []string{"json"}, WriterOptions{SyncEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rows := sampleRows()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				r := rows[(g+i)%len(rows)]
				r.Trial = g*100 + i
				if err := w.Write(r); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(filepath.Join(dir, ResultsCSV))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 200 {
		t.Errorf("%d rows, want 200", len(got))
	}
	if n := bytes.Count(readFile(t, filepath.Join(dir, ResultsJSONL)), []byte("\n")); n != 200 {
		t.Errorf("%d JSON lines, want 200", n)
	}
}

// A CSV syntax error before the last record is damage too.
func TestWriterAppendSyntaxError(t *testing.T) {
	dir := writeAll(t, sampleRows()[:3])
	path := filepath.Join(dir, ResultsCSV)
	damaged := bytes.Replace(readFile(t, path), []byte("lcr,,sim"), []byte(`l"cr,,sim`), 2)
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewWriter(dir, nil, WriterOptions{Append: true})
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want a ParseError at line 2", err)
	}
}

func TestSummaryFilesAreWorldReadable(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSummaryFiles(dir, []string{"csv"}, nil); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, SummaryCSV))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o044 == 0 {
		t.Fatalf("summary.csv has mode %v: others cannot read it", st.Mode().Perm())
	}
}

// Len counts the rows results.csv holds, a resumed run's earlier rows
// included: a shard's manifest records it without reading the file back.
func TestWriterLen(t *testing.T) {
	dir := t.TempDir()
	rows := sampleRows()
	half := len(rows) / 2
	for i, part := range [][]Row{rows[:half], rows[half:]} {
		w, err := NewWriter(dir, []string{"csv"}, WriterOptions{Append: i > 0})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range part {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		read, err := ReadFile(filepath.Join(dir, ResultsCSV))
		if err != nil {
			t.Fatal(err)
		}
		if w.Len() != len(read) || w.Done().Len() != i*half {
			t.Errorf("part %d: Len %d, Done %d; results.csv holds %d rows, %d of them before", i, w.Len(), w.Done().Len(), len(read), i*half)
		}
	}
}

// WriterOptions.Rows hands on each row queued, in the file's order, as its
// line of results.csv reads back: escaped text, quiet NaN, an Unseen row's
// counts 0 (edgeRows).
func TestWriterRowsAreTheFiles(t *testing.T) {
	dir := t.TempDir()
	var fed []Row
	w, err := NewWriter(dir, []string{"csv", "json"}, WriterOptions{Rows: func(r *Row) { fed = append(fed, *r) }})
	if err != nil {
		t.Fatal(err)
	}
	rows := edgeRows()
	for i, r := range rows {
		queue := w.Queue
		if i%2 == 1 {
			queue = w.Write
		}
		if err := queue(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	read, err := ReadFile(filepath.Join(dir, ResultsCSV))
	if err != nil {
		t.Fatal(err)
	}
	if len(fed) != len(rows) || len(read) != len(rows) {
		t.Fatalf("%d rows written, %d handed on, %d read back", len(rows), len(fed), len(read))
	}
	for i := range read {
		if !sameRow(fed[i], read[i]) {
			t.Errorf("row %d handed on\n%+v\nread back\n%+v", i, fed[i], read[i])
		}
	}
}
