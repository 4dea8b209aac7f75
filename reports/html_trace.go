package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TraceError is a trace file that cannot be read, as WriteHTML reports it.
type TraceError struct {
	Name string // the file, as HTMLOptions.TraceName gives it
	Err  error
}

func (e *TraceError) Error() string { return e.Name + ": " + e.Err.Error() }
func (e *TraceError) Unwrap() error { return e.Err }

// TraceHeader is the line that precedes each trial's events in a trace file
// written by `electbench run --trace`:
// {"trial":N,"algorithm":...,"variant":...,"nodes":N,"seed":S,"scenario":...},
// with "runtime":"live" for a trial that ran live.
type TraceHeader struct {
	Trial     int    `json:"trial"`
	Algorithm string `json:"algorithm"`
	Variant   string `json:"variant"`
	Nodes     int    `json:"nodes"`
	Seed      uint64 `json:"seed"`
	Scenario  string `json:"scenario"`
	Runtime   string `json:"runtime"` // "" means sim
}

// TraceEvent is one line of a trial's trace (nodes/sim's tracer): T in
// nanoseconds of virtual time; Ev one of start, initiate, send, recv, timer,
// decide, crash, suspect (P suspects Q) and drop (a message reaching a
// crashed process). Send pairs with recv or drop by ID; processes are ring or
// rank positions. Events of other kinds are kept and shown by name.
type TraceEvent struct {
	T      int64  `json:"t"`
	Ev     string `json:"ev"`
	P      int    `json:"p"`
	Q      int    `json:"q"` // suspect: the suspected process
	ID     int64  `json:"id"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Kind   string `json:"kind"`
	Rank   string `json:"rank"`
	Aux    string `json:"aux"`
	A      int64  `json:"a"`
	B      int64  `json:"b"`
	Timer  string `json:"timer"`
	Leader string `json:"leader"`
	Text   string `json:"text"` // note: an external program's log line
	What   string `json:"what"` // fault: "crash(3)", "heal partition(halves)"
}

// TraceTrial is the kept part of one trial's trace.
type TraceTrial struct {
	TraceHeader
	Events    []TraceEvent // from the start, up to the limit asked for
	Total     int          // events the trial has in the file
	Truncated bool         // Events holds only part of them
	Excerpt   []TraceEvent // the events around the instant asked for
	// Window marks Events as a window of the trial, not its start: a
	// diagram's time axis starts at the first of them, and a send whose
	// delivery is not among them is not drawn as lost.
	Window bool
	// Leads are all the trial's events that lead asked for (an incident's
	// leader messages and crashes, for its leadership time-line), and End
	// the time of its last event.
	Leads []TraceEvent
	End   int64
}

// traceKey matches a trace header to a results row. The scenario is part of
// it: scenarios of one file share seeds, so without it a multi-scenario
// report could attach one scenario's trace to another's row; so is the
// runtime: a run may hold the same trial simulated and live.
type traceKey struct {
	runtime, scenario, algorithm, variant string
	nodes, trial                          int
	seed                                  uint64
}

func (h TraceHeader) key() traceKey {
	return traceKey{cmpOr(h.Runtime, "sim"), h.Scenario, h.Algorithm, h.Variant, h.Nodes, h.Trial, h.Seed}
}

func rowTraceKey(r *Row) traceKey {
	return traceKey{cmpOr(r.Runtime, "sim"), r.Scenario, r.Algorithm, r.Variant, r.Nodes, r.Trial, r.Seed}
}

// traceWant says what to keep of one trial: up to max events from its
// start (a diagram), and, when around ≥ 0, the excerpt of events nearest
// that virtual time (nanoseconds; math.MaxInt64 for the trial's end).
// maint, when set, says which message kinds are maintenance (heartbeats,
// pings): the excerpt counts only the others, and keeps the maintenance
// events between them (up to a bound) for a reader who asks to see them.
type traceWant struct {
	max    int
	around int64
	maint  func(kind string) bool
	lead   func(ev *TraceEvent) bool // keep every event it selects, without a bound
}

// excerptBefore and excerptAfter are how many events other than
// maintenance messages a violation's excerpt shows before and after its
// instant; excerptAt bounds those at the instant itself (the violating
// event is among them), excerptMaint the maintenance events kept in all.
const (
	excerptBefore = 16
	excerptAfter  = 8
	excerptAt     = 64
	excerptMaint  = 400
)

// isMaint reports whether ev is a maintenance message under maint.
func isMaint(ev *TraceEvent, maint func(string) bool) bool {
	switch ev.Ev {
	case "send", "recv", "drop", "dup", "lose":
		return maint != nil && ev.Kind != "" && maint(ev.Kind)
	}
	return false
}

// excerpt collects the events around an instant, one at a time in trace
// order.
type excerpt struct {
	at     int64
	maint  func(string) bool
	events []TraceEvent
	before int // events before the instant that are not maintenance
	atN    int // events at the instant that are not maintenance
	after  int // events after it that are not maintenance
	nMaint int
}

func (x *excerpt) add(ev TraceEvent) {
	m := isMaint(&ev, x.maint)
	switch {
	case ev.T < x.at:
		x.events = append(x.events, ev)
		if m {
			x.nMaint++
		} else {
			x.before++
		}
		// Drop from the front until excerptBefore remain, and the
		// maintenance events beyond the bound.
		for x.before > excerptBefore || x.nMaint > excerptMaint {
			if isMaint(&x.events[0], x.maint) {
				x.nMaint--
			} else {
				x.before--
			}
			x.events = x.events[1:]
		}
	case ev.T == x.at:
		if m {
			if x.nMaint < excerptMaint {
				x.events = append(x.events, ev)
				x.nMaint++
			}
		} else if x.atN < excerptAt {
			x.events = append(x.events, ev)
			x.atN++
		}
	case x.after < excerptAfter:
		if m {
			if x.nMaint < excerptMaint {
				x.events = append(x.events, ev)
				x.nMaint++
			}
			return
		}
		x.events = append(x.events, ev)
		x.after++
	}
}

// readTrace reads a trace file in one pass and keeps, for each trial that
// want selects (ok true), the events it asks for. Lines of trials not
// selected are skipped without being decoded, so a large trace costs little
// more than reading it.
func readTrace(r io.Reader, want func(TraceHeader) (traceWant, bool)) ([]*TraceTrial, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var out []*TraceTrial
	var cur *TraceTrial
	var w traceWant
	var ex *excerpt
	finish := func() {
		if cur == nil {
			return
		}
		if ex != nil {
			cur.Excerpt = ex.events
		}
		out = append(out, cur)
		cur = nil
	}
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if bytes.HasPrefix(b, []byte(`{"trial":`)) {
			finish()
			var h TraceHeader
			if err := json.Unmarshal(b, &h); err != nil {
				return nil, fmt.Errorf("trace line %d: %w", line, err)
			}
			var ok bool
			if w, ok = want(h); ok {
				cur = &TraceTrial{TraceHeader: h}
				ex = nil
				if w.around >= 0 {
					ex = &excerpt{at: w.around, maint: w.maint}
				}
			}
			continue
		}
		if cur == nil {
			continue
		}
		cur.Total++
		var ev TraceEvent
		if err := json.Unmarshal(b, &ev); err != nil {
			return nil, fmt.Errorf("trace line %d: %w", line, err)
		}
		// Positions are checked against the header before anything is
		// sized by them: a diagram has a lane per process, and one event
		// at position 5e7 would otherwise draw fifty million lanes.
		if p := max(ev.P, ev.Q, ev.From, ev.To); p >= cur.Nodes {
			return nil, fmt.Errorf("trace line %d: process position %d in a trial of %d nodes", line, p, cur.Nodes)
		}
		if cur.Total <= w.max {
			cur.Events = append(cur.Events, ev)
		} else if w.max > 0 {
			cur.Truncated = true
		}
		if ex != nil {
			ex.add(ev)
		}
		if w.lead != nil && w.lead(&ev) {
			cur.Leads = append(cur.Leads, ev)
		}
		cur.End = max(cur.End, ev.T)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace line %d: %w", line+1, err)
	}
	finish()
	return out, nil
}

// violationAt finds the instant a violation names ("wrong-leader at 12ms:
// ..."), as nanoseconds.
var violationAt = regexp.MustCompile(`\bat ([0-9][0-9.]*(?:ns|us|µs|ms|s|m|h)(?:[0-9.]+(?:ns|us|µs|ms|s|m|h))*)\b`)

func violationTime(v string) (int64, bool) {
	m := violationAt.FindStringSubmatch(v)
	if m == nil {
		return 0, false
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		return 0, false
	}
	return int64(d), true
}

// describeEvent writes one trace event for people: the time in T when tNs
// (T in nanoseconds) is known, who did what.
func describeEvent(ev TraceEvent, tNs float64) string {
	var b strings.Builder
	b.WriteString(formatTraceTime(ev.T, tNs))
	b.WriteString("  ")
	switch ev.Ev {
	case "send", "recv", "drop", "dup", "lose":
		arrow := "→"
		if ev.Ev != "send" {
			arrow = "⇒"
		}
		fmt.Fprintf(&b, "%-4s p%d %s p%d %s", ev.Ev, ev.From, arrow, ev.To, messageLabel(ev))
		fmt.Fprintf(&b, " #%d", ev.ID)
	case "timer":
		fmt.Fprintf(&b, "timer p%d %s", ev.P, ev.Timer)
	case "decide":
		fmt.Fprintf(&b, "decide p%d leader=%s", ev.P, ev.Leader)
	case "suspect":
		fmt.Fprintf(&b, "suspect p%d suspects p%d", ev.P, ev.Q)
	case "note":
		fmt.Fprintf(&b, "note p%d %s", ev.P, ev.Text)
	default:
		fmt.Fprintf(&b, "%s p%d", ev.Ev, ev.P)
	}
	return b.String()
}

// messageLabel is KIND(rank, aux, a, b) with the fields the message carries.
func messageLabel(ev TraceEvent) string {
	var args []string
	if ev.Rank != "" {
		args = append(args, ev.Rank)
	}
	if ev.Aux != "" {
		args = append(args, "aux="+ev.Aux)
	}
	if ev.A != 0 {
		args = append(args, "a="+strconv.FormatInt(ev.A, 10))
	}
	if ev.B != 0 {
		args = append(args, "b="+strconv.FormatInt(ev.B, 10))
	}
	if len(args) == 0 {
		return ev.Kind
	}
	return ev.Kind + "(" + strings.Join(args, ", ") + ")"
}

// formatTraceTime writes t (nanoseconds) in units of T when T is known,
// as a duration otherwise.
func formatTraceTime(t int64, tNs float64) string {
	if tNs > 0 {
		return "t=" + strconv.FormatFloat(float64(t)/tNs, 'f', -1, 64) + "T"
	}
	return "t=" + time.Duration(t).String()
}
