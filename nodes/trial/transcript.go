package trial

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Transcript is a Sink that writes a trial's events as a golden
// transcript: a header naming the algorithm and the ranks by position,
// then one event a line, "t=3T send 0->1 ELECTION(r=5)", times in units
// of T. It is the one human-readable format of the event stream: nodetest's
// golden files are transcripts, and the simulator writes the same one
// (the metamorphic test in nodes/sim checks that it does, file by file).
type Transcript struct {
	b    strings.Builder
	unit time.Duration
	// phase is each process's phase as last reported, and whether it has
	// been reported since the process (re)started: runtimes report a
	// Phased machine's phase after every event, and a transcript shows
	// only its changes from the phase it is in once started.
	phase map[int32]phaseSeen
}

type phaseSeen struct {
	phase string
	known bool
}

// NewTranscript starts a transcript of alg/variant with params on ranks,
// with times in units of unit. The header says all a run under the
// reference model needs besides its initiators and crashes, which its
// lines say: "# maekawa/default params stagger=1T ranks 1 2 3 4".
func NewTranscript(alg, variant string, params nodes.Params, ranks []nodes.Rank, unit time.Duration) *Transcript {
	t := &Transcript{unit: unit}
	fmt.Fprintf(&t.b, "# %s/%s", alg, variant)
	if len(params) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(params)) {
			kv = append(kv, k+"="+params[k])
		}
		t.b.WriteString(" params " + strings.Join(kv, ","))
	}
	t.b.WriteString(" ranks")
	for _, r := range ranks {
		fmt.Fprintf(&t.b, " %v", r)
	}
	t.b.WriteByte('\n')
	return t
}

// Event writes one line.
func (t *Transcript) Event(e *Event) {
	switch e.Kind {
	case EvStart, EvRestart:
		delete(t.phase, e.P)
	case EvPhase:
		if t.phase == nil {
			t.phase = map[int32]phaseSeen{}
		}
		was := t.phase[e.P]
		t.phase[e.P] = phaseSeen{e.Phase, true}
		if !was.known || was.phase == e.Phase {
			return
		}
	}
	fmt.Fprintf(&t.b, "t=%sT %s\n", strconv.FormatFloat(float64(e.At)/float64(t.unit), 'f', -1, 64), e.Line())
}

// String is the transcript so far.
func (t *Transcript) String() string { return t.b.String() }

// Line formats the event as a transcript line, without its time.
func (e *Event) Line() string {
	msg := func() string { return fmt.Sprintf("%s %d->%d %s", e.Kind, e.P, e.Q, FormatMessage(e.Msg)) }
	switch e.Kind {
	case EvStart, EvInitiate, EvCrash, EvRestart, EvPause, EvResume:
		return fmt.Sprintf("%s p=%d", e.Kind, e.P)
	case EvSend, EvRecv, EvDrop, EvDup, EvLose:
		return msg()
	case EvSuspect:
		return fmt.Sprintf("suspect p=%d q=%d", e.P, e.Q)
	case EvTimer:
		return fmt.Sprintf("timer p=%d %s", e.P, e.Timer)
	case EvDecide:
		return fmt.Sprintf("decide p=%d leader=%v", e.P, e.Leader)
	case EvPhase:
		return fmt.Sprintf("phase p=%d %s", e.P, e.Phase)
	case EvFault:
		return "fault " + e.What
	case EvNote:
		return fmt.Sprintf("note p=%d %s", e.P, e.What)
	}
	return e.Kind.String()
}

// FormatMessage writes a message as its kind followed by its non-zero
// fields: ELECTION(r=5), VOTE(r=30 a=1 b=1), OK.
func FormatMessage(m nodes.Message) string {
	var fields []string
	if !m.Rank.IsZero() {
		fields = append(fields, "r="+m.Rank.String())
	}
	if !m.Aux.IsZero() {
		fields = append(fields, "aux="+m.Aux.String())
	}
	if m.A != 0 {
		fields = append(fields, "a="+strconv.FormatInt(m.A, 10))
	}
	if m.B != 0 {
		fields = append(fields, "b="+strconv.FormatInt(m.B, 10))
	}
	if len(fields) == 0 {
		return m.Kind.String()
	}
	return m.Kind.String() + "(" + strings.Join(fields, " ") + ")"
}
