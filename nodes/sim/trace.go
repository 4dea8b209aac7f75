package sim

import (
	"bufio"
	"strconv"

	"github.com/electbench/electbench/nodes"
)

// tracer writes one JSON object per event:
//
//	{"t":ns,"ev":"start"|"initiate","p":i}
//	{"t":ns,"ev":"send"|"recv","id":m,"from":i,"to":j,"kind":"ELECTION","rank":"5",...}
//	{"t":ns,"ev":"timer","p":i,"timer":"T1"}
//	{"t":ns,"ev":"decide","p":i,"leader":"5"}
//	{"t":ns,"ev":"crash","p":i}
//	{"t":ns,"ev":"suspect","p":i,"q":j}          (i's detector suspects j)
//	{"t":ns,"ev":"drop",...}                     (a message reaching a crashed process)
//
// Processes are named by position; "id" pairs a send with its delivery.
// Written by hand rather than with encoding/json: tracing a large run must not
// cost an allocation per event. A nil tracer traces nothing.
type tracer struct {
	w   *bufio.Writer
	buf []byte
}

func (t *tracer) begin(at int64, ev string) {
	t.buf = append(t.buf[:0], `{"t":`...)
	t.buf = strconv.AppendInt(t.buf, at, 10)
	t.buf = append(t.buf, `,"ev":"`...)
	t.buf = append(t.buf, ev...)
	t.buf = append(t.buf, '"')
}

func (t *tracer) num(key string, v int64) {
	t.buf = append(t.buf, ',', '"')
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, '"', ':')
	t.buf = strconv.AppendInt(t.buf, v, 10)
}

// str appends a string field; values are kind, timer and rank names, which
// never need escaping.
func (t *tracer) str(key, v string) {
	t.buf = append(t.buf, ',', '"')
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, `":"`...)
	t.buf = append(t.buf, v...)
	t.buf = append(t.buf, '"')
}

func (t *tracer) end() {
	t.buf = append(t.buf, '}', '\n')
	t.w.Write(t.buf) // errors are sticky in bufio.Writer and reported by flush
}

func (t *tracer) event(at int64, ev string, p int) {
	if t == nil {
		return
	}
	t.begin(at, ev)
	t.num("p", int64(p))
	t.end()
}

func (t *tracer) message(at int64, ev string, ord uint64, from, to int32, m *nodes.Message) {
	t.begin(at, ev)
	t.num("id", int64(ord&(1<<56-1)))
	t.num("from", int64(from))
	t.num("to", int64(to))
	t.str("kind", m.Kind.String())
	if !m.Rank.IsZero() {
		t.str("rank", m.Rank.String())
	}
	if !m.Aux.IsZero() {
		t.str("aux", m.Aux.String())
	}
	if m.A != 0 {
		t.num("a", m.A)
	}
	if m.B != 0 {
		t.num("b", m.B)
	}
	t.end()
}

func (t *tracer) timer(at int64, p int, id nodes.TimerID) {
	if t == nil {
		return
	}
	t.begin(at, "timer")
	t.num("p", int64(p))
	t.str("timer", id.String())
	t.end()
}

func (t *tracer) decide(at int64, p int, leader nodes.Rank) {
	if t == nil {
		return
	}
	t.begin(at, "decide")
	t.num("p", int64(p))
	t.str("leader", leader.String())
	t.end()
}

func (t *tracer) flush() error { return t.w.Flush() }

func (t *tracer) suspect(at int64, p, q int) {
	if t == nil {
		return
	}
	t.begin(at, "suspect")
	t.num("p", int64(p))
	t.num("q", int64(q))
	t.end()
}
