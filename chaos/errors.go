package chaos

import (
	"fmt"
	"strings"
)

// Error is one problem in a scenario file.
type Error struct {
	File      string
	Line, Col int    // 1-based; 0 when unknown
	Field     string // the field's path, as "faults[2].jitter"; empty for syntax errors
	Msg       string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in a file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// MaxErrors bounds the problems reported for one file: past a few, the rest
// are usually consequences of the first.
const MaxErrors = 20

// Pos is a position in a file.
type Pos struct{ Line, Col int }
