package live

import (
	"bufio"
	"encoding/json"
	"io"
)

// reporter writes the node's lines on the control channel: reports as
// JSON, steps in their own form (appendStep). Lines are buffered; the node
// flushes them when it has nothing else to do.
type reporter struct {
	out  *bufio.Writer
	line []byte // a step line, reused
}

func newReporter(w io.Writer) *reporter {
	return &reporter{out: bufio.NewWriterSize(w, 64<<10)}
}

func (r *reporter) report(rep Report) {
	b, err := json.Marshal(rep)
	if err != nil {
		panic(err) // every field is a plain value
	}
	r.out.Write(append(b, '\n'))
}

func (r *reporter) step(s *step) {
	r.line = appendStep(r.line[:0], s.at, s)
	r.out.Write(r.line)
}

func (r *reporter) flush() error { return r.out.Flush() }
