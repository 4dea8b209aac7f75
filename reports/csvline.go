package reports

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// appendCSVLine appends r's line of results.csv to b: the bytes
// encoding/csv writes for r's cells (TestAppendCSVLine), each number
// appended in place rather than formatted to a string of its own, since a
// sweep of small trials writes rows by the hundred thousand (issue 42).
func (r *Row) appendCSVLine(b []byte) []byte {
	for i := range columns {
		if i > 0 {
			b = append(b, ',')
		}
		b = columns[i].csv(b, r)
	}
	return append(b, '\n')
}

// asRead makes r the row its line of results.csv reads back as: what a
// reader of the file sees, for those that take the rows as they are
// written instead (WriterOptions.Rows). Every other field a cell holds
// exactly (TestAppendCSVLine).
func (r *Row) asRead() {
	for i := range columns {
		if c := &columns[i]; c.canon != nil {
			c.canon(r)
		}
	}
}

// appendCSVText appends s as a cell of results.csv: Printable, then quoted
// where encoding/csv quotes (csvNeedsQuotes).
func appendCSVText(b []byte, s string) []byte {
	if !plainASCII(s) {
		s = Printable(s)
	}
	if !csvNeedsQuotes(s) {
		return append(b, s...)
	}
	return appendCSVQuoted(b, s)
}

// appendCSVQuoted appends s quoted as encoding/csv's Writer quotes a field
// (Comma ',', UseCRLF false): its quotes doubled, every other byte as it is.
func appendCSVQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// csvNeedsQuotes is encoding/csv's Writer.fieldNeedsQuotes with Comma ','.
func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n', '\r', '"', ',':
			return true
		}
	}
	r1, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r1)
}

// appendCSVCounts appends c's cell (Counts.String, Printable, quoted where
// need be) without building the string when its kinds are plain.
func appendCSVCounts(b []byte, c Counts) []byte {
	start := len(b)
	for i, kc := range c {
		if i > 0 {
			b = append(b, ';')
		}
		b = append(b, kc.Kind...)
		b = append(b, '=')
		b = strconv.AppendInt(b, kc.N, 10)
	}
	if plainCell(b[start:]) {
		return b
	}
	return appendCSVText(b[:start], c.String())
}

// plainCell reports whether cell is printable ASCII that encoding/csv
// writes unquoted: no comma or quote, not led by a space, not `\.`.
func plainCell(cell []byte) bool {
	if len(cell) > 0 && cell[0] == ' ' || string(cell) == `\.` {
		return false
	}
	for _, c := range cell {
		if c < ' ' || c > '~' || c == ',' || c == '"' {
			return false
		}
	}
	return true
}
