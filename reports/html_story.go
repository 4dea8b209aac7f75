package reports

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Story is what a fault story page (electbench shrink's story.html)
// tells: a shrunk scenario's file, its one trial's row (the violation, the
// fault schedule, T) and trace, drawn as a Lamport diagram with the
// violating event marked, each fault told in a sentence.
type Story struct {
	Name     string   // the scenario's name
	File     []byte   // the scenario file
	Row      Row      // the trial's row
	Failures []string // the expectations it failed
	Trace    io.Reader
	IDs      []string // the trial's identities by position, labelling the lanes; nil: unknown
	// Arms are the trial's timer arms, in time order (the trace does not
	// hold them: trial.EvArm), for the length of the timer that expired
	// before the violation; nil: the story tells when it fired only.
	Arms []TimerArm
}

// TimerArm is a process arming a timer: process P armed Timer at At to
// expire For later (nanoseconds).
type TimerArm struct {
	P       int
	Timer   string
	At, For int64
}

// WriteStory writes the fault story page: self-contained (inline style
// and SVG, nothing fetched), so that it opens offline.
func WriteStory(w io.Writer, st Story) error {
	tr, err := readStoryTrace(st)
	if err != nil {
		return err
	}
	tNs := st.Row.TS * 1e9
	windows := FaultWindows(&st.Row)
	p := newPage("electbench shrink: " + st.Name)
	p.para("", txt("The smallest run found that still fails "), bold(strings.Join(st.Failures, "; ")),
		txtf(": %s N=%d, trial seed %d.", algoLabelOf(tr.Algorithm, tr.Variant), tr.Nodes, tr.Seed))
	p.h2("story", txt("The fault story"))
	var items [][]run
	for _, w := range windows {
		items = append(items, []run{txt(ForReader(faultSentence(w, tr.Events, tNs), st.IDs))})
	}
	_, because := violationStory(tr.Events, st.Arms, st.Row.Violation, tNs)
	items = append(items, []run{bold(ForReader(because, st.IDs))})
	p.list("", items)
	if len(windows) == 0 {
		p.note("No fault: the violation needs none, only the configuration (parameters, latency, seed) above.")
	}
	p.h2("diagram", txt("Space-time diagram"))
	p.note("Time runs down, one lane per process; an arrow is a message from its send to its delivery, a cross a message lost. Shaded: the faults. Ringed: the violating event.")
	focus(tr, st.Row.Violation, tNs)
	mark, _ := violationStory(tr.Events, st.Arms, st.Row.Violation, tNs)
	p.svg(markedDiagram("story", tr, tNs, windows, nil, st.IDs, mark, "violation"))
	p.h2("scenario", txt("The scenario"))
	var lines []preLine
	for _, l := range strings.Split(strings.TrimRight(string(st.File), "\n"), "\n") {
		lines = append(lines, preLine{Text: l})
	}
	p.pre("", lines)
	return p.write(w)
}

// StoryLine tells the fault story in one line: the violation by its
// cause, as the page's last sentence tells it ("p1's timer T1 fired at
// 1.5T, before the OK from p0 (sent at 1T) arrived at 2T; then
// wrong-leader at 1.5ms: ..."), for a terminal or a job's log.
func StoryLine(st Story) (string, error) {
	tr, err := readStoryTrace(st)
	if err != nil {
		return "", err
	}
	_, because := violationStory(tr.Events, st.Arms, st.Row.Violation, st.Row.TS*1e9)
	return because, nil
}

// readStoryTrace reads the story's trace: one trial.
func readStoryTrace(st Story) (*TraceTrial, error) {
	trs, err := readTrace(st.Trace, func(TraceHeader) (traceWant, bool) {
		return traceWant{max: DiagramMaxEvents, around: -1}, true
	})
	if err != nil {
		return nil, fmt.Errorf("reading the story's trace: %w", err)
	}
	if len(trs) != 1 {
		return nil, fmt.Errorf("reading the story's trace: %d trials, want one", len(trs))
	}
	return trs[0], nil
}

func algoLabelOf(alg, variant string) string {
	if variant == "" || variant == "default" {
		return alg
	}
	return alg + "/" + variant
}

// actsOnce reports whether a fault acts once (a false suspicion, a
// restart) rather than holding for a while.
func actsOnce(label string) bool {
	return strings.HasPrefix(label, "suspect(") || strings.HasPrefix(label, "restart(")
}

// suspicions tells who suspected whom at the instant at: "p1, p2 suspected
// p0".
func suspicions(evs []TraceEvent, at int64) string {
	by := map[int][]string{}
	var order []int
	for _, ev := range evs {
		if ev.Ev != "suspect" || ev.T != at {
			continue
		}
		if by[ev.Q] == nil {
			order = append(order, ev.Q)
		}
		by[ev.Q] = append(by[ev.Q], "p"+strconv.Itoa(ev.P))
	}
	var out []string
	for _, q := range order {
		out = append(out, fmt.Sprintf("the detectors of %s suspected p%d", strings.Join(by[q], ", "), q))
	}
	return strings.Join(out, "; ")
}

// faultSentence tells what a fault did: when it held, the messages it
// lost, the slowest message sent while it held, the processes it stopped,
// whose detectors it made suspect whom.
func faultSentence(w FaultWindow, evs []TraceEvent, tNs float64) string {
	from, until := int64(math.Round(w.From*tNs)), int64(math.MaxInt64)
	when := "from " + formatTraceTime(from, tNs)[2:]
	var did []string
	switch {
	case actsOnce(w.Label):
		when = "at " + formatTraceTime(from, tNs)[2:]
	case !math.IsInf(w.Until, 1):
		until = int64(math.Round(w.Until * tNs))
		when += " to " + formatTraceTime(until, tNs)[2:]
	default:
		when += " to the end"
	}
	if sus := suspicions(evs, from); strings.HasPrefix(w.Label, "suspect(") && sus != "" {
		did = append(did, sus)
	}
	lost, firstLost := 0, ""
	sent := map[int64]*TraceEvent{}
	var slow *TraceEvent
	var slowest int64
	for i := range evs {
		ev := &evs[i]
		switch {
		case ev.Ev == "send":
			sent[ev.ID] = ev
		case (ev.Ev == "lose" || ev.Ev == "drop") && ev.T >= from && ev.T <= until:
			if lost++; lost == 1 {
				firstLost = fmt.Sprintf("the %s from p%d to p%d at %s", ev.Kind, ev.From, ev.To, formatTraceTime(ev.T, tNs)[2:])
			}
		case ev.Ev == "recv" && sent[ev.ID] != nil && sent[ev.ID].T >= from && sent[ev.ID].T < until:
			if d := ev.T - sent[ev.ID].T; d > slowest {
				slow, slowest = ev, d
			}
		}
	}
	if lost > 0 {
		did = append(did, fmt.Sprintf("%d message(s) lost, the first %s", lost, firstLost))
	}
	if slow != nil && float64(slowest) > 1.5*tNs {
		did = append(did, fmt.Sprintf("the %s from p%d to p%d sent at %s took %s", slow.Kind, slow.From, slow.To,
			formatTraceTime(sent[slow.ID].T, tNs)[2:], formatTraceTime(slowest, tNs)[2:]))
	}
	if held := unhandled(w.Label, evs, from, until, tNs); held != "" {
		did = append(did, held)
	}
	if c := crashed(evs, from, until, tNs); c != "" {
		did = append(did, c)
	}
	if len(did) == 0 {
		did = append(did, "nothing the trace shows changed by it")
	}
	return fmt.Sprintf("%s %s: %s.", w.Label, when, strings.Join(did, "; "))
}

// crashed tells the processes that crashed in [from, until], the leader
// each had last decided then, and when each came back: a restart is a
// fresh machine that keeps only what it saved on its stable store, so
// what it forgot is often the whole story.
func crashed(evs []TraceEvent, from, until int64, tNs float64) string {
	believed := map[int]string{}
	var downs []string
	down := map[int]bool{}
	for _, ev := range evs {
		switch {
		case ev.Ev == "decide" && ev.T < from:
			believed[ev.P] = ev.Leader
		case ev.Ev == "crash" && ev.T >= from && ev.T <= until && !down[ev.P]:
			down[ev.P] = true
			what := fmt.Sprintf("p%d crashed", ev.P)
			if l, ok := believed[ev.P]; ok {
				what += fmt.Sprintf(" having decided %s", l)
			}
			downs = append(downs, what)
		case ev.Ev == "restart" && ev.T >= from && down[ev.P]:
			down[ev.P] = false
			downs = append(downs, fmt.Sprintf("p%d restarted at %s as a fresh machine, keeping only its stable store", ev.P, formatTraceTime(ev.T, tNs)[2:]))
		}
	}
	return strings.Join(downs, "; ")
}

var violationProc = regexp.MustCompile(`\bprocess (\d+)`)

// violationStory finds the violating event (the last event of the
// process the violation names at its instant) and says why it happened:
// the timer of that process that fired last before it (with its length,
// when arms tell it), the answers still on their way to it then, and what
// the checker saw.
func violationStory(evs []TraceEvent, arms []TimerArm, violation string, tNs float64) (mark int, because string) {
	at, ok := violationTime(violation)
	p := -1
	if m := violationProc.FindStringSubmatch(violation); m != nil {
		p, _ = strconv.Atoi(m[1])
	}
	mark = -1
	for i, ev := range evs {
		if ok && ev.T == at && (ev.P == p || p < 0) && ev.Ev != "send" && ev.Ev != "recv" {
			mark = i
		}
	}
	because = "Violation: " + violation + "."
	if violation == "" {
		because = "No safety violation: the trial failed the expectations above."
	}
	if mark < 0 || p < 0 {
		return mark, because
	}
	var timer *TraceEvent
	for i := mark; i >= 0; i-- {
		if evs[i].Ev == "timer" && evs[i].P == p {
			timer = &evs[i]
			break
		}
	}
	if timer == nil {
		return mark, lastHeard(evs, mark, p, tNs) + violation + "."
	}
	var late []string
	sent := map[int64]*TraceEvent{}
	for i := range evs {
		ev := &evs[i]
		switch {
		case ev.Ev == "send" && ev.To == p && ev.T <= timer.T:
			sent[ev.ID] = ev
		case ev.Ev == "recv" && sent[ev.ID] != nil && ev.T > timer.T && len(late) < 2:
			late = append(late, fmt.Sprintf("the %s from p%d (sent at %s) arrived at %s", ev.Kind, ev.From,
				formatTraceTime(sent[ev.ID].T, tNs)[2:], formatTraceTime(ev.T, tNs)[2:]))
			delete(sent, ev.ID)
		}
	}
	s := fmt.Sprintf("p%d's timer %s fired at %s", p, timer.Timer, formatTraceTime(timer.T, tNs)[2:])
	if a, ok := armOf(arms, p, timer); ok {
		s = fmt.Sprintf("p%d's timer %s of %s (set at %s) expired at %s", p, timer.Timer,
			formatTraceTime(a.For, tNs)[2:], formatTraceTime(a.At, tNs)[2:], formatTraceTime(timer.T, tNs)[2:])
	}
	if len(late) > 0 {
		s += ", before " + strings.Join(late, ", and ")
	}
	return mark, s + "; then " + violation + "."
}

// armOf is the arm of the timer that fired in fired: the last arm of
// that process and timer that expires then.
func armOf(arms []TimerArm, p int, fired *TraceEvent) (TimerArm, bool) {
	for i := len(arms) - 1; i >= 0; i-- {
		a := arms[i]
		if a.P == p && a.Timer == fired.Timer && a.At+a.For == fired.T {
			return a, true
		}
	}
	return TimerArm{}, false
}

// unhandled tells, for a fault on processes ("pause(0)", "crash(2,3)"),
// the messages to them sent while it held that they did not handle
// before it ended: a paused or crashed process's silence is what its
// peers' timers see.
func unhandled(label string, evs []TraceEvent, from, until int64, tNs float64) string {
	kind, args, ok := strings.Cut(label, "(")
	if !ok || strings.Contains(kind, "[") {
		return ""
	}
	targets := map[int]bool{}
	var procs []string
	for _, a := range strings.Split(strings.TrimSuffix(args, ")"), ",") {
		if p, err := strconv.Atoi(strings.TrimSpace(a)); err == nil {
			targets[p] = true
			procs = append(procs, "p"+strconv.Itoa(p))
		}
	}
	handled := map[int64]int64{}
	for _, ev := range evs {
		if ev.Ev == "recv" {
			handled[ev.ID] = ev.T
		}
	}
	n, first := 0, ""
	for _, ev := range evs {
		if ev.Ev != "send" || !targets[ev.To] || ev.T < from || ev.T >= until {
			continue
		}
		if at, ok := handled[ev.ID]; ok && at <= until {
			continue
		}
		if n++; n == 1 {
			first = fmt.Sprintf("the %s from p%d to p%d sent at %s", ev.Kind, ev.From, ev.To, formatTraceTime(ev.T, tNs)[2:])
			if at, ok := handled[ev.ID]; ok {
				first += ", handled only at " + formatTraceTime(at, tNs)[2:]
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%s) handled none of the %d message(s) sent meanwhile, the first %s", strings.Join(procs, ", "), kind, n, first)
}

// lastHeard tells the last message process p received before the event
// evs[mark]: what it decided on ("after the ELECTION from p3 (sent at 2T,
// arrived at 3T), "), "" when none.
func lastHeard(evs []TraceEvent, mark, p int, tNs float64) string {
	for i := mark; i >= 0; i-- {
		ev := evs[i]
		if ev.Ev != "recv" || ev.To != p {
			continue
		}
		for j := i; j >= 0; j-- {
			if evs[j].Ev == "send" && evs[j].ID == ev.ID {
				return fmt.Sprintf("After the %s from p%d (sent at %s, arrived at %s): ", messageLabel(ev), ev.From,
					formatTraceTime(evs[j].T, tNs)[2:], formatTraceTime(ev.T, tNs)[2:])
			}
		}
		return fmt.Sprintf("After the %s from p%d (arrived at %s): ", messageLabel(ev), ev.From, formatTraceTime(ev.T, tNs)[2:])
	}
	return "Violation: "
}

// storyEvents bounds the events a story draws: a shrunk run is small,
// but a quorum algorithm's heartbeats can fill a long deadline.
const storyEvents = 400

// focus keeps, of a trace too long to draw whole, the events that lead up
// to the violation (from storyLead before it to 2T after), or else the
// last storyEvents; the diagram then draws them as a window.
func focus(tr *TraceTrial, violation string, tNs float64) {
	if len(tr.Events) <= storyEvents {
		return
	}
	evs := tr.Events[len(tr.Events)-storyEvents:]
	if at, ok := violationTime(violation); ok && tNs > 0 {
		from, until := at-int64(storyLead*tNs), at+int64(2*tNs)
		i := sort.Search(len(tr.Events), func(i int) bool { return tr.Events[i].T >= from })
		j := sort.Search(len(tr.Events), func(i int) bool { return tr.Events[i].T > until })
		evs = tr.Events[i:j]
		if len(evs) > storyEvents {
			evs = evs[len(evs)-storyEvents:]
		}
	}
	tr.Events, tr.Window = evs, true
}

// storyLead is how long before the violation a long story's diagram
// starts, in T.
const storyLead = 10
