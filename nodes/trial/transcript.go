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

// TranscriptRun is what a transcript says of the run that wrote it: the
// algorithm (Spec, as nodes.Lookup takes it), its params, the ranks by
// position, who was told to initiate at time 0 and who was down before the
// start, the time of its last line, and its lines after the header.
type TranscriptRun struct {
	Spec       string
	Params     nodes.Params
	Ranks      []nodes.Rank
	Initiators []int
	Down       []int
	Last       time.Duration
	Lines      []string
}

// ReadTranscript reads a transcript written with times in units of unit,
// so that a runtime can run what it says again (the metamorphic tests of
// the simulator and the live harness do, for every golden transcript).
func ReadTranscript(text string, unit time.Duration) (TranscriptRun, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	head := strings.Fields(strings.TrimPrefix(lines[0], "# "))
	if len(head) == 0 || !strings.HasPrefix(lines[0], "# ") {
		return TranscriptRun{}, fmt.Errorf("header %q: want \"# alg/variant [params k=v,...] ranks r...\"", lines[0])
	}
	g := TranscriptRun{Spec: head[0], Lines: lines[1:]}
	rest := head[1:]
	if len(rest) > 1 && rest[0] == "params" {
		g.Params = nodes.Params{}
		for kv := range strings.SplitSeq(rest[1], ",") {
			k, v, _ := strings.Cut(kv, "=")
			g.Params[k] = v
		}
		rest = rest[2:]
	}
	if len(rest) == 0 || rest[0] != "ranks" {
		return g, fmt.Errorf("header %q: want \"# alg/variant [params k=v,...] ranks r...\"", lines[0])
	}
	for _, s := range rest[1:] {
		r, err := nodes.ParseRank(s)
		if err != nil {
			return g, fmt.Errorf("header: rank %q: %w", s, err)
		}
		g.Ranks = append(g.Ranks, r)
	}
	started := false
	for i, l := range g.Lines {
		at, what, _ := strings.Cut(strings.TrimPrefix(l, "t="), "T ")
		v, err := strconv.ParseFloat(at, 64)
		if err != nil {
			return g, fmt.Errorf("line %d %q: %w", i+2, l, err)
		}
		g.Last = time.Duration(v * float64(unit))
		verb, arg, _ := strings.Cut(what, " p=")
		p, _ := strconv.Atoi(arg)
		switch {
		case v != 0:
		case verb == "start":
			started = true
		case verb == "crash" && !started:
			g.Down = append(g.Down, p)
		case verb == "initiate":
			g.Initiators = append(g.Initiators, p)
		}
	}
	return g, nil
}

// Sent counts the transcript's sends by message kind.
func (g TranscriptRun) Sent() map[string]int64 {
	out := map[string]int64{}
	g.each("send ", func(rest string) {
		_, msg, _ := strings.Cut(rest, " ")
		kind, _, _ := strings.Cut(msg, "(")
		out[kind]++
	})
	return out
}

// Decided is the leader each process decided last, by position, as the
// transcript's decide lines name it (its rank).
func (g TranscriptRun) Decided() map[int]string {
	out := map[int]string{}
	g.each("decide p=", func(rest string) {
		p, leader, _ := strings.Cut(rest, " leader=")
		if n, err := strconv.Atoi(p); err == nil {
			out[n] = leader
		}
	})
	return out
}

// each calls f with what follows verb on every line whose event starts
// with it.
func (g TranscriptRun) each(verb string, f func(rest string)) {
	for _, l := range g.Lines {
		_, what, _ := strings.Cut(l, "T ")
		if rest, ok := strings.CutPrefix(what, verb); ok {
			f(rest)
		}
	}
}
