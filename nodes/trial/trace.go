package trial

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// Trace is a Sink that writes one JSON object per event:
//
//	{"t":ns,"ev":"start"|"initiate"|"crash"|"restart"|"pause"|"resume","p":i}
//	{"t":ns,"ev":"send"|"recv"|"drop"|"dup"|"lose","id":m,"from":i,"to":j,"kind":"ELECTION","rank":"5",...}
//	{"t":ns,"ev":"timer","p":i,"timer":"T1"}
//	{"t":ns,"ev":"decide","p":i,"leader":"5"}
//	{"t":ns,"ev":"suspect","p":i,"q":j}          (i's detector suspects j)
//	{"t":ns,"ev":"fault","what":"crash(3)"}      (a fault starts or heals)
//
// Processes are named by position; "id" pairs a send with its delivery.
// Phases are not traced. Written by hand rather than with encoding/json:
// tracing a large run must not cost an allocation per event. Errors are
// sticky and reported by Flush.
type Trace struct {
	w   *bufio.Writer
	buf []byte
}

// NewTrace writes the trace to w; call Flush at the end.
func NewTrace(w io.Writer) *Trace { return &Trace{w: bufio.NewWriterSize(w, 1<<16)} }

// Kinds is every kind but EvPhase.
func (t *Trace) Kinds() Kinds { return AllKinds &^ KindsOf(EvPhase) }

// Flush writes what is buffered and reports the first write error.
func (t *Trace) Flush() error { return t.w.Flush() }

// Event writes one line.
func (t *Trace) Event(e *Event) {
	t.begin(int64(e.At), e.Kind.String())
	switch {
	case e.Kind.IsMessage():
		m := &e.Msg
		t.num("id", int64(e.ID))
		t.num("from", int64(e.P))
		t.num("to", int64(e.Q))
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
	case e.Kind == EvTimer:
		t.num("p", int64(e.P))
		t.str("timer", e.Timer.String())
	case e.Kind == EvDecide:
		t.num("p", int64(e.P))
		t.str("leader", e.Leader.String())
	case e.Kind == EvSuspect:
		t.num("p", int64(e.P))
		t.num("q", int64(e.Q))
	case e.Kind == EvFault:
		t.str("what", strings.Map(func(r rune) rune {
			if r == '"' || r == '\\' || r < 0x20 {
				return -1 // names never need escaping; drop what would
			}
			return r
		}, e.What))
	case e.Kind == EvPhase:
		t.num("p", int64(e.P))
		t.str("phase", e.Phase)
	case e.Kind == EvNote:
		t.num("p", int64(e.P))
		text, _ := json.Marshal(e.What) // any text: JSON escapes it
		t.buf = append(t.buf, `,"text":`...)
		t.buf = append(t.buf, text...)
	default:
		t.num("p", int64(e.P))
	}
	t.buf = append(t.buf, '}', '\n')
	t.w.Write(t.buf) // errors are sticky in bufio.Writer and reported by Flush
}

func (t *Trace) begin(at int64, ev string) {
	t.buf = append(t.buf[:0], `{"t":`...)
	t.buf = strconv.AppendInt(t.buf, at, 10)
	t.buf = append(t.buf, `,"ev":"`...)
	t.buf = append(t.buf, ev...)
	t.buf = append(t.buf, '"')
}

func (t *Trace) num(key string, v int64) {
	t.buf = append(t.buf, ',', '"')
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, '"', ':')
	t.buf = strconv.AppendInt(t.buf, v, 10)
}

// str appends a string field; values are kind, timer, phase and rank
// names, which never need escaping.
func (t *Trace) str(key, v string) {
	t.buf = append(t.buf, ',', '"')
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, `":"`...)
	t.buf = append(t.buf, v...)
	t.buf = append(t.buf, '"')
}
