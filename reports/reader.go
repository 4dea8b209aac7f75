package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/electbench/electbench/internal/boundedio"
)

// Key identifies a trial: two rows with the same Key ran the same
// configuration with the same seed, so a resumed run skips a trial whose Key
// is already in results.csv.
type Key struct {
	Algorithm   string
	Variant     string
	Runtime     string
	Scenario    string
	Nodes       int
	Arrangement string
	Initiators  string
	Latency     string
	Trial       int
	Seed        uint64
}

// Key returns the row's trial identity.
func (r Row) Key() Key {
	return Key{
		Algorithm:   r.Algorithm,
		Variant:     r.Variant,
		Runtime:     r.Runtime,
		Scenario:    r.Scenario,
		Nodes:       r.Nodes,
		Arrangement: r.Arrangement,
		Initiators:  r.Initiators,
		Latency:     r.Latency,
		Trial:       r.Trial,
		Seed:        r.Seed,
	}
}

// KeyHashLen is the length of a KeyHash.
const KeyHashLen = 8

// KeyHash is a short hash of the trial's identity (every field of Key,
// none of which measures time): what a shard's manifest records for each
// row it must hold (Manifest.ShardKeys).
//
// The bytes hashed are fmt's "%q %q %q %q %d %q %q %q %d %d" of the fields
// in Key's order, appended by strconv (the same bytes: fmt's %q is
// strconv.Quote) without fmt's reflection: a merge and a shard's manifest
// hash every row.
func (k Key) KeyHash() string {
	var buf [256]byte
	b := buf[:0]
	for i, s := range [...]string{k.Algorithm, k.Variant, k.Runtime, k.Scenario} {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendQuote(b, s)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(k.Nodes), 10)
	for _, s := range [...]string{k.Arrangement, k.Initiators, k.Latency} {
		b = append(b, ' ')
		b = strconv.AppendQuote(b, s)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(k.Trial), 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, k.Seed, 10)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:KeyHashLen/2])
}

// String names the trial for messages: algorithm/variant runtime scenario
// n=.. arrangement initiators latency trial=.. seed=...
func (k Key) String() string {
	return fmt.Sprintf("%s/%s %s %s n=%d %s %s %s trial=%d seed=%d",
		k.Algorithm, k.Variant, k.Runtime, k.Scenario, k.Nodes,
		k.Arrangement, k.Initiators, k.Latency, k.Trial, k.Seed)
}

// ParseError is a results file that cannot be read: a CSV syntax error, a
// header without a stable column, or a cell that does not parse.
type ParseError struct {
	Line   int    // 1-based line of the input where the problem is
	Column string // column name; empty for syntax and header errors
	Err    error
}

func (e *ParseError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d, column %s: %v", e.Line, e.Column, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// ReadCSV reads a results file as Writer writes it. Columns are found by
// header name, so their order does not matter; unknown columns are ignored
// (a newer file read by an older build) and columns missing from the header
// read as zero values (an older file), except the stable ones DESIGN.md
// fixes (StableColumns), which must be present. Any bad cell is an error naming its line and
// column.
func ReadCSV(r io.Reader) ([]Row, error) { return readCSV(r, 0) }

// readCSV is ReadCSV with room for capacity rows made at once: a slice
// that doubles as it grows holds up to twice the rows, and copies them.
// Each row is decoded in its place in the slice.
func readCSV(r io.Reader, capacity int) ([]Row, error) {
	rows := make([]Row, 0, capacity)
	err := scanCSV(r, func(cr *csv.Reader, dec *decoder, rec []string) error {
		rows = append(rows, Row{})
		return dec.decode(cr, rec, &rows[len(rows)-1])
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// ScanCSV reads a results file as ReadCSV does, handing each row to fn as
// it is read instead of holding them all: a command that needs only
// figures of the rows (compare, report) keeps those, not the rows, each
// 648 bytes against some 220 of CSV. fn gets each row in one place,
// reused for the next (a row each was as much garbage as the file), so it
// copies what it keeps; its error stops the scan and is returned.
func ScanCSV(r io.Reader, fn func(*Row) error) error {
	var row Row
	return scanCSV(r, func(cr *csv.Reader, dec *decoder, rec []string) error {
		row = Row{}
		if err := dec.decode(cr, rec, &row); err != nil {
			return err
		}
		return fn(&row)
	})
}

// scanCSV reads the header of a results file and hands each record after
// it to each, with the decoder of that header.
func scanCSV(r io.Reader, each func(*csv.Reader, *decoder, []string) error) error {
	cr := newCSVReader(boundedio.Lines(r, MaxLine))
	header, err := cr.Read()
	if err == io.EOF {
		return &ParseError{Line: 1, Err: errors.New("empty input: no header")}
	}
	if err != nil {
		return csvError(err)
	}
	dec, err := newDecoder(header)
	if err != nil {
		return &ParseError{Line: 1, Err: err}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(err)
		}
		if err := each(cr, dec, rec); err != nil {
			return err
		}
	}
}

// MaxLine bounds a line of a results file: a row is a few hundred bytes,
// and its longest cells (faults, violation) some kilobytes.
const MaxLine = 16 << 20

// ReadFile reads the results file at path with ReadCSV, its rows in one
// allocation of the size its lines ask for; errors name the file.
func ReadFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines, err := countFileLines(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rows, err := readCSV(f, lines)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// ScanFile reads the results file at path with ScanCSV; errors name the
// file.
func ScanFile(path string, fn func(*Row) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := ScanCSV(f, fn); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Rows are results handed over one row at a time: Rows(fn) calls fn with
// each row in order, in a place it may reuse (fn copies what it keeps),
// and stops at fn's first error, which it returns with its own (a file
// that cannot be read). A report reads its rows so, keeping of each only
// what it draws (WriteHTML).
type Rows func(fn func(*Row) error) error

// RowsOf hands over rows held in memory.
func RowsOf(rows []Row) Rows {
	return func(fn func(*Row) error) error {
		for i := range rows {
			if err := fn(&rows[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// FileRows hands over the rows of the results file at path as it is
// read (ScanFile), each time it is called.
func FileRows(path string) Rows {
	return func(fn func(*Row) error) error { return ScanFile(path, fn) }
}

// countFileLines counts the lines of a regular file (countLines) and
// leaves it at its start; anything else (a pipe, a device that never
// ends) is not read ahead, and counts 0.
func countFileLines(f *os.File) (int, error) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0, err
	}
	lines, err := countLines(io.LimitReader(f, st.Size()))
	if err != nil {
		return 0, err
	}
	_, err = f.Seek(0, io.SeekStart)
	return lines, err
}

// countLines counts the newlines of r, at most maxRows: as many as the
// records after the header, or a few more where a quoted cell holds a
// newline.
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF || n >= maxRows {
			return min(n, maxRows), nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// maxRows bounds the rows made room for ahead of reading them (a row is
// about 1 KB): a file of more rows grows its slice as it is read.
const maxRows = 1 << 24

// newCSVReader reads records into one reused slice: a decoder copies what
// a row keeps of them (decoder.intern).
func newCSVReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	return cr
}

// csvError turns encoding/csv's error into a ParseError with its line.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{Line: pe.Line, Err: fmt.Errorf("field %d: %w", pe.Column, pe.Err)}
	}
	return err
}

// decoder maps the fields of one header to columns.
type decoder struct {
	cols []*column // per field; nil for an unknown column
	// texts are the text cells read so far, each held once, up to
	// maxInterned: a sweep's rows repeat a few algorithms, scenarios,
	// latencies and message-kind lists, and each row held its own copy of
	// its line before.
	texts map[string]string
	// counts are the counts cells parsed so far, by text, up to
	// maxInterned: rows share one Counts of the same text, which no
	// reader changes (ParseCounts made each row 48 bytes of its own, 5%
	// of a report's rows).
	counts map[string]Counts
}

// maxInterned bounds the texts a decoder shares: cells past it (fault
// schedules, violations: one of a kind) are copied each on its own.
const maxInterned = 1 << 14

// intern returns a copy of s that no record holds, shared with every
// earlier cell of the same text.
func (d *decoder) intern(s string) string {
	if s == "" {
		return ""
	}
	if t, ok := d.texts[s]; ok {
		return t
	}
	t := strings.Clone(s)
	if len(d.texts) < maxInterned {
		d.texts[t] = t
	}
	return t
}

func newDecoder(header []string) (*decoder, error) {
	byName := make(map[string]*column, len(columns))
	for i := range columns {
		byName[columns[i].name] = &columns[i]
	}
	d := &decoder{cols: make([]*column, len(header)), texts: map[string]string{}, counts: map[string]Counts{}}
	seen := make(map[string]bool, len(header))
	for i, name := range header {
		if i == 0 {
			// A spreadsheet that re-saves the file may add a byte order mark.
			name = strings.TrimPrefix(name, "\uFEFF")
		}
		if seen[name] {
			return nil, fmt.Errorf("header names column %q twice", name)
		}
		seen[name] = true
		d.cols[i] = byName[name]
	}
	for _, c := range columns[:StableColumns] {
		if !seen[c.name] {
			return nil, fmt.Errorf("header lacks column %q: not a results file", c.name)
		}
	}
	return d, nil
}

// decode parses one record into row, a zero Row: the one in the slice
// that holds it, so that no row is a heap copy of its own, garbage once
// appended (a quarter of a report's peak). cr locates its fields for
// errors.
func (d *decoder) decode(cr *csv.Reader, rec []string, row *Row) error {
	for i, c := range d.cols {
		if c == nil {
			continue
		}
		cell := rec[i]
		if c.text {
			cell = d.intern(cell)
		}
		if c.counts != nil {
			if kc, ok := d.counts[cell]; ok {
				*c.counts(row) = kc
				continue
			}
		}
		if err := c.parse(row, cell); err != nil {
			line, _ := cr.FieldPos(i)
			return &ParseError{Line: line, Column: c.name, Err: err}
		}
		if c.counts != nil && len(d.counts) < maxInterned {
			d.counts[cell] = *c.counts(row)
		}
	}
	return nil
}
