package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"unsafe"
)

// BenchmarkReadFile reads a results file of 100,000 rows shaped like a
// large sweep (syntheticRows) and reports what the reader costs per row:
// allocated (alloc-B/row, garbage included) and still held once read
// (held-B/row, Row's own size included), beside the file's bytes per row
// (file-B/row). Issue 39: a report, a --resume and a compare of a 100 MB
// file held 15–25 times its size, each row its whole line and a slice
// that doubled as it grew.
func BenchmarkReadFile(b *testing.B) {
	const n = 100000
	dir := b.TempDir()
	w, err := NewWriter(dir, []string{"csv"}, WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range syntheticRows(n) {
		if err := w.Write(r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, ResultsCSV)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	var held uint64
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		rows, err := ReadFile(path)
		if err != nil || len(rows) != n {
			b.Fatalf("%d rows, %v", len(rows), err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(rows)
	}
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "alloc-B/row")
	b.ReportMetric(float64(held)/n, "held-B/row")
	b.ReportMetric(float64(st.Size())/n, "file-B/row")
	b.ReportMetric(float64(unsafe.Sizeof(Row{})), "Row-B")
}

// A row read back holds no part of its CSV line: each text cell is a copy
// shared by the rows that repeat it (decoder.intern), as are the counts of
// a counts cell repeated (decoder.counts), and the rows equal those
// written.
func TestReadFileSharesText(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir, []string{"csv"}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := sampleRows()
	want = append(want, want[0]) // its counts cells repeat row 0's
	for _, r := range want {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadFile(filepath.Join(dir, ResultsCSV))
	if err != nil || len(rows) != len(want) {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if unsafe.StringData(rows[0].Algorithm) != unsafe.StringData(rows[1].Algorithm) ||
		unsafe.StringData(rows[0].MessagesByKind[0].Kind) != unsafe.StringData(rows[1].MessagesByKind[0].Kind) {
		t.Errorf("the rows of one algorithm hold copies of their own of %q and %q", rows[0].Algorithm, rows[0].MessagesByKind[0].Kind)
	}
	if again := rows[len(rows)-1].MessagesByKind; &again[0] != &rows[0].MessagesByKind[0] {
		t.Errorf("two rows of the counts %v hold a Counts each", again)
	}
	for i := range want {
		if got := rows[i].cells(); !slices.Equal(got, want[i].cells()) {
			t.Errorf("row %d read back as %q, written as %q", i, got, want[i].cells())
		}
	}
}

// A comparison read as a stream (ScanFile into a CompareSide) holds the
// figures it tests, not the rows: issue 39 measured compare of two
// 100 MB files at 1.46 GB, some 900 bytes held per row of some 200 of
// CSV. The side's bytes per row are bounded here (a row's four compared
// figures, and their slices' room to grow), and the comparison equals
// Compare's of the rows read whole.
func TestCompareSideHoldsFigures(t *testing.T) {
	const n = 20000
	path := filepath.Join(t.TempDir(), ResultsCSV)
	writeResults(t, path, syntheticRows(n))
	opt := CompareOptions{Disruption: true}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	side := NewCompareSide(opt)
	if err := ScanFile(path, func(r *Row) error { side.Add(r); return nil }); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	t.Logf("a compare side holds %.1f B/row (a Row is %d B)", held, unsafe.Sizeof(Row{}))
	if held > 80 {
		t.Errorf("a compare side holds %.1f B/row, want at most 80 (4 figures of 8 B, room to grow)", held)
	}
	rows, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := CompareSides(side, side), Compare(rows, rows, opt); !reflect.DeepEqual(got, want) {
		t.Errorf("streamed comparison %+v, of the rows %+v", got, want)
	}
	runtime.KeepAlive(side)
}

// A report read as a stream (WriteHTML of FileRows) holds what its
// sections draw, not the rows: with every row held it was 455 MB for a
// 104 MB results.csv, the rows alone three times the file. Its bytes per
// row are bounded here (a row's summarised and charted figures, and their
// slices' room to grow), and the page equals the one of the rows read
// whole.
func TestReportHoldsFigures(t *testing.T) {
	const n = 20000
	path := filepath.Join(t.TempDir(), ResultsCSV)
	writeResults(t, path, syntheticRows(n))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rr := newReportReader(&HTMLOptions{MaxFailing: 200})
	if err := ScanFile(path, func(r *Row) error { rr.add(r); return nil }); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	t.Logf("a report holds %.1f B/row (a Row is %d B)", held, unsafe.Sizeof(Row{}))
	if held > 200 {
		t.Errorf("a report holds %.1f B/row, want at most 200 (its figures of 8 B, room to grow)", held)
	}
	runtime.KeepAlive(rr)
	rows, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var streamed, whole bytes.Buffer
	if err := WriteHTML(&streamed, FileRows(path), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&whole, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
		t.Error("the report of the file read as a stream differs from the report of its rows")
	}
}
