package reports

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/electbench/electbench/internal/boundedio"
)

// File names a run writes under its output directory.
const (
	ResultsCSV   = "results.csv"
	ResultsJSONL = "results.jsonl"
	SummaryCSV   = "summary.csv"
	SummaryJSON  = "summary.json"
)

// WriterOptions tune a Writer.
type WriterOptions struct {
	// Append keeps the trials already in the directory's results.csv (for
	// --resume) and adds new rows after them. A final line cut short by a
	// crash is dropped; a file from an older build whose header is a prefix
	// of Columns is rewritten once with the current header, its rows padded
	// with the zero value of each new column. Any other header is an error.
	Append bool
	// SyncEvery is the least time between fsyncs of the files; 0 syncs only
	// at Close. Every row reaches the operating system as soon as Write
	// returns whatever this is, so a killed process loses no finished trial;
	// fsync guards against losing the machine.
	SyncEvery time.Duration
	// Rows, when set, is handed each row the Writer queues, once its
	// lines are, in the order of results.csv's lines and as its line reads
	// back (Row.asRead): a run's end takes its summary from them rather
	// than read the file back, a tenth of a sweep's CPU in decoding
	// (issue 42). The row is the Writer's, reused for the next: Rows
	// copies what it keeps. Rows runs under the Writer's lock.
	Rows func(*Row)
}

// Writer streams result rows to results.csv, and to results.jsonl when the
// "json" format is asked for: a row per Write, or the rows queued (Queue)
// at a Flush. It is safe for concurrent use by the goroutines that finish
// trials.
type Writer struct {
	mu       sync.Mutex
	csvPath  string
	csvFile  *os.File
	jsonPath string
	jsonFile *os.File // nil unless "json" was asked for
	// done are the keys of the rows an appending Writer found in
	// results.csv (Done); written counts the rows written after them.
	done    *KeySet
	written int
	every   time.Duration
	synced  time.Time
	err     error // the first write error; the files may hold a partial line after it
	closed  bool
	// line is the lines of results.csv queued (Queue), jsonLines those
	// of results.jsonl, their buffers kept for the next rows, since a
	// sweep of small trials writes rows by the hundred thousand.
	line      []byte
	jsonLines []byte
	row       Row        // the row being written
	rows      func(*Row) // WriterOptions.Rows
}

// NewWriter creates dir if needed and opens its result files. formats are the
// run's --format values: "csv" (results.csv is always written), "json"
// (adds results.jsonl: one JSON object per row, keys the column names, empty
// cells null) and "html" (the report, written elsewhere). Without
// opts.Append existing result files are replaced.
func NewWriter(dir string, formats []string, opts WriterOptions) (*Writer, error) {
	wantJSON, err := checkFormats(formats)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	w := &Writer{
		csvPath:  filepath.Join(dir, ResultsCSV),
		jsonPath: filepath.Join(dir, ResultsJSONL),
		every:    opts.SyncEvery,
		rows:     opts.Rows,
		synced:   time.Now(),
		done:     NewKeySet(),
	}
	if opts.Append {
		err = w.openAppend(dir, wantJSON)
	} else {
		err = w.openNew(wantJSON)
	}
	if err != nil {
		w.closeFiles()
		return nil, err
	}
	return w, nil
}

// checkFormats reports whether formats ask for JSON, or names one it does not
// know.
func checkFormats(formats []string) (bool, error) {
	wantJSON := false
	for _, f := range formats {
		switch f {
		case "csv", "html":
		case "json":
			wantJSON = true
		default:
			return false, fmt.Errorf("unknown results format %q (want csv, json or html)", f)
		}
	}
	return wantJSON, nil
}

func (w *Writer) openNew(wantJSON bool) error {
	var err error
	if w.csvFile, err = os.Create(w.csvPath); err != nil {
		return err
	}
	if _, err := w.csvFile.Write(header()); err != nil {
		return fmt.Errorf("%s: %w", w.csvPath, err)
	}
	if wantJSON {
		if w.jsonFile, err = os.Create(w.jsonPath); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) openAppend(dir string, wantJSON bool) error {
	kept, err := recoverResults(w.csvPath)
	if err != nil {
		return err
	}
	switch {
	case kept.header == nil:
		// No file, or nothing of it survived: start afresh.
		return w.openNew(wantJSON)
	case len(kept.header) < len(Columns):
		if err := upgradeResults(dir, w.csvPath, kept); err != nil {
			return err
		}
	case kept.good < kept.size:
		if err := os.Truncate(w.csvPath, kept.good); err != nil {
			return fmt.Errorf("dropping the cut-off last line of %s: %w", w.csvPath, err)
		}
	}
	if w.csvFile, err = os.OpenFile(w.csvPath, os.O_WRONLY|os.O_APPEND, 0); err != nil {
		return err
	}
	w.done = kept.done
	if wantJSON {
		// results.jsonl is derived from results.csv, which the crash may have
		// cut at a different row, so rebuild it from the rows kept, read
		// again as a stream.
		err := writeFileAtomic(dir, w.jsonPath, func(out io.Writer) error {
			return WriteJSONL(out, FileRows(w.csvPath))
		})
		if err != nil {
			return err
		}
		if w.jsonFile, err = os.OpenFile(w.jsonPath, os.O_WRONLY|os.O_APPEND, 0); err != nil {
			return err
		}
	}
	return nil
}

// Done returns the keys of the rows an appending Writer found in
// results.csv: the trials a resumed run skips. It holds the keys, not the
// rows: a resumed run of 470,000 rows held them whole before (300 MB).
func (w *Writer) Done() *KeySet { return w.done }

// Len counts the rows results.csv holds: Done's and those written.
func (w *Writer) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done.Len() + w.written
}

// Write adds one row to every result file and hands it to the operating
// system before returning: Queue and Flush.
func (w *Writer) Write(r Row) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.queue(r); err != nil {
		return err
	}
	return w.flush()
}

// Queue adds one row to every result file's pending lines, which reach
// the operating system at the next Flush, Write or Close, or once they
// come to maxPending bytes. A run's executor queues the rows ready at
// once and flushes before it waits for the next trial (group commit):
// no row waits for more than the writes of the rows ready with it, and a
// sweep of small trials makes a write call per batch, not per row (issue
// 42: a write a row was a tenth of a 10,000-trial run's CPU). A process
// killed loses the rows queued and not flushed, which are finished trials
// of no file: --resume runs them again, as it runs the trials that were
// running.
func (w *Writer) Queue(r Row) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.queue(r); err != nil {
		return err
	}
	if len(w.line) >= maxPending || len(w.jsonLines) >= maxPending {
		return w.flush()
	}
	return nil
}

// maxPending is the bytes of lines that Queue lets wait for a Flush: a
// bound on the memory of a batch, and on what one write call hands over.
const maxPending = 64 << 10

// Flush hands every row queued to the operating system, one write call
// per file, so a killed process cuts at most the last line (which
// --resume drops).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("results writer is closed")
	}
	return w.flush()
}

func (w *Writer) queue(r Row) error {
	if w.closed {
		return errors.New("results writer is closed")
	}
	if w.err != nil {
		return w.err
	}
	// The codecs take the row by pointer through function values: r
	// itself would escape, a kilobyte allocated a row.
	w.row = r
	row := &w.row
	if err := row.check(); err != nil {
		return fmt.Errorf("result row %v: %w", row.Key(), err)
	}
	w.line = row.appendCSVLine(w.line)
	w.written++
	if w.jsonFile != nil {
		w.jsonLines = append(row.appendJSON(w.jsonLines), '\n')
	}
	if w.rows != nil {
		row.asRead()
		w.rows(row)
	}
	return nil
}

// flush writes the lines queued, one write call per file, and syncs when
// SyncEvery has passed.
func (w *Writer) flush() error {
	if w.err != nil {
		return w.err
	}
	if w.err = writeQueued(w.csvFile, w.csvPath, &w.line); w.err != nil {
		return w.err
	}
	if w.err = writeQueued(w.jsonFile, w.jsonPath, &w.jsonLines); w.err != nil {
		return w.err
	}
	if w.every > 0 && time.Since(w.synced) >= w.every {
		if err := w.sync(); err != nil {
			w.err = err
			return err
		}
		w.synced = time.Now()
	}
	return nil
}

// writeQueued writes the lines in *buf to f in one call and empties the
// buffer, keeping it for the next lines.
func writeQueued(f *os.File, path string, buf *[]byte) error {
	if len(*buf) == 0 {
		return nil
	}
	_, err := f.Write(*buf)
	*buf = (*buf)[:0]
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Close flushes the rows queued, syncs and closes the files. Closing twice
// is harmless.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	var err error
	if w.err == nil { // rows queued after a failed write are lost with it
		err = w.flush()
	}
	w.closed = true
	if serr := w.sync(); err == nil {
		err = serr
	}
	if cerr := w.closeFiles(); err == nil {
		err = cerr
	}
	return err
}

func (w *Writer) sync() error {
	if err := w.csvFile.Sync(); err != nil {
		return fmt.Errorf("%s: %w", w.csvPath, err)
	}
	if w.jsonFile != nil {
		if err := w.jsonFile.Sync(); err != nil {
			return fmt.Errorf("%s: %w", w.jsonPath, err)
		}
	}
	return nil
}

func (w *Writer) closeFiles() error {
	var errs []error
	if w.csvFile != nil {
		errs = append(errs, w.csvFile.Close())
	}
	if w.jsonFile != nil {
		errs = append(errs, w.jsonFile.Close())
	}
	return errors.Join(errs...)
}

// WriteCSV writes the header and rows as results.csv holds them.
func WriteCSV(out io.Writer, rows []Row) error {
	var b bytes.Buffer
	b.Write(header())
	for i := range rows {
		if err := rows[i].check(); err != nil {
			return fmt.Errorf("result row %v: %w", rows[i].Key(), err)
		}
		b.Write(rows[i].appendCSVLine(b.AvailableBuffer()))
	}
	_, err := out.Write(b.Bytes())
	return err
}

// WriteJSONL writes rows as results.jsonl holds them: one object a line,
// written as they are read.
func WriteJSONL(out io.Writer, rows Rows) error {
	bw := bufio.NewWriterSize(out, 64<<10)
	var b []byte
	err := rows(func(r *Row) error {
		if err := r.check(); err != nil {
			return fmt.Errorf("result row %v: %w", r.Key(), err)
		}
		b = append(r.appendJSON(b[:0]), '\n')
		_, err := bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// recovered is what survives of a results file from an earlier run.
type recovered struct {
	header []string // nil when no complete header survived
	done   *KeySet  // the keys of the complete records' rows
	good   int64    // bytes up to the end of the last complete record
	size   int64
}

// recoverResults reads the results file at path, keeping every complete
// record. A last record without its newline, or one that does not parse as
// CSV at all, was cut by a crash in the middle of a write: it is left out.
// Anything else wrong is an error, since appending to a damaged file would
// hide the damage. The file is read as a stream, each row decoded in one
// place and only its key kept.
func recoverResults(path string) (recovered, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return recovered{}, nil
	}
	if err != nil {
		return recovered{}, err
	}
	defer f.Close()
	out, endsLine, err := measureResults(f)
	if err != nil {
		return recovered{}, fmt.Errorf("%s: %w", path, err)
	}
	cr := newCSVReader(bufio.NewReaderSize(boundedio.Lines(f, MaxLine), 64<<10))
	cr.FieldsPerRecord = -1
	var dec *decoder
	var row Row
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			if _, next := cr.Read(); next == io.EOF {
				return out, nil // the cut-off last record
			}
			return recovered{}, fmt.Errorf("%s: %w", path, csvError(err))
		}
		end := cr.InputOffset()
		if end == out.size && !endsLine {
			return out, nil // the cut-off last record
		}
		if dec == nil {
			if err := checkHeader(rec); err != nil {
				return recovered{}, fmt.Errorf("%s: %w", path, err)
			}
			if dec, err = newDecoder(rec); err != nil {
				return recovered{}, fmt.Errorf("%s: %w", path, err)
			}
			out.header, out.good = slices.Clone(rec), end
			out.done = NewKeySet()
			continue
		}
		if len(rec) != len(out.header) {
			line, _ := cr.FieldPos(0)
			return recovered{}, fmt.Errorf("%s: %w", path, &ParseError{Line: line,
				Err: fmt.Errorf("%d fields, header has %d", len(rec), len(out.header))})
		}
		row = Row{}
		if err := dec.decode(cr, rec, &row); err != nil {
			return recovered{}, fmt.Errorf("%s: %w", path, err)
		}
		out.done.Add(row.Key())
		out.good = end
	}
}

// measureResults returns, for an open results file, its size and whether
// it ends with a newline (a last record without one was cut). Only a
// regular file is one: a run appends to it.
func measureResults(f *os.File) (out recovered, endsLine bool, err error) {
	st, err := f.Stat()
	if err != nil {
		return recovered{}, false, err
	}
	if !st.Mode().IsRegular() {
		return recovered{}, false, errors.New("not a regular file")
	}
	out.size = st.Size()
	if out.size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, out.size-1); err != nil {
			return recovered{}, false, err
		}
		endsLine = last[0] == '\n'
	}
	return out, endsLine, nil
}

// checkHeader accepts Columns or an older prefix of it holding at least the
// stable columns; appending to any other file would mix two layouts.
func checkHeader(h []string) error {
	if len(h) > len(Columns) {
		return fmt.Errorf("header has %d columns, this build knows %d: written by a newer electbench?", len(h), len(Columns))
	}
	for i, name := range h {
		if name != Columns[i] {
			return fmt.Errorf("header column %d is %q, this build writes %q there: cannot append to a different layout", i+1, name, Columns[i])
		}
	}
	if len(h) < StableColumns {
		return fmt.Errorf("header has %d columns, every results file has at least %d: not a results file", len(h), StableColumns)
	}
	return nil
}

// upgradeResults rewrites an older results file with the current header,
// padding each kept record with the cells of a zero Row for the new columns.
// The records kept (the file up to kept.good) are read again and written
// one at a time: holding them all cost more than twice the file.
func upgradeResults(dir, path string, kept recovered) error {
	zero := (&Row{}).cells()[len(kept.header):]
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cr := newCSVReader(bufio.NewReaderSize(boundedio.Lines(io.LimitReader(f, kept.good), MaxLine), 64<<10))
	return writeFileAtomic(dir, path, func(out io.Writer) error {
		// encoding/csv writes each record as encodeRecord does.
		cw := csv.NewWriter(out)
		if err := cw.Write(Columns); err != nil {
			return err
		}
		padded := make([]string, 0, len(Columns))
		n := 0
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("%s: %w", path, csvError(err))
			}
			if n++; n == 1 {
				continue // the old header
			}
			if err := cw.Write(append(append(padded[:0], rec...), zero...)); err != nil {
				return err
			}
		}
		// The file read again must be the one recoverResults read.
		if n-1 != kept.done.Len() {
			return fmt.Errorf("%s: %d records, %d when read before: changed while resuming", path, n-1, kept.done.Len())
		}
		cw.Flush()
		return cw.Error()
	})
}

// writeFileAtomic replaces path with what fill writes, through a synced
// temporary file renamed into place, so a crash leaves the old or the new
// file, never half of one.
func writeFileAtomic(dir, path string, fill func(io.Writer) error) error {
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600; results are ordinary files that other
	// users (a CI job, a web server) read.
	err = tmp.Chmod(0o644)
	if err == nil {
		err = fill(tmp)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("rewriting %s: %w", path, err)
	}
	// Make the rename itself durable where the platform allows it.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// header is Columns as one CSV line.
func header() []byte { return encodeRecord(Columns) }

// encodeRecord returns fields as one CSV line, as encoding/csv writes it.
func encodeRecord(fields []string) []byte {
	var b strings.Builder
	w := csv.NewWriter(&b)
	// Writing to a strings.Builder cannot fail.
	_ = w.Write(fields)
	w.Flush()
	return []byte(b.String())
}

// cells returns the row's CSV cells in Columns order, each Printable:
// text from outside (a program's errors, its stderr) reaches a terminal
// that shows results.csv, and must not carry an escape sequence there.
func (r *Row) cells() []string { return r.appendCells(make([]string, 0, len(columns))) }

// appendCells appends the row's cells, as cells returns them, to out.
func (r *Row) appendCells(out []string) []string {
	for _, c := range columns {
		out = append(out, Printable(c.cell(r)))
	}
	return out
}

// check reports a row the files could not hold faithfully.
func (r *Row) check() error {
	if err := checkCounts("messages_by_kind", r.MessagesByKind); err != nil {
		return err
	}
	return checkCounts("timeouts_by_kind", r.TimeoutsByKind)
}

// appendJSON writes the row as one JSON object, keys in Columns order.
func (r *Row) appendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, c := range columns {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, c.name)
		b = append(b, ':')
		b = c.json(b, r)
	}
	return append(b, '}')
}

// WriteFileAtomic writes path through fill: the file appears complete, or
// not at all (a temporary file beside it, renamed). The command line writes
// every -o FILE through it.
func WriteFileAtomic(path string, fill func(io.Writer) error) error {
	return writeFileAtomic(filepath.Dir(path), path, fill)
}
