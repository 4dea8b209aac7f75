package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// The step-through explorer (electbench explore) is one self-contained page
// for one trial of a trace: its message-sequence diagram with a cursor on
// one event, controls that move the cursor (a slider, play, step, jump to
// the next message, decision, fault or the violation), and each process's
// state at the cursor, as the trace's events up to it tell it. The trace is
// embedded as JSON in columns and the page's script draws only the rows
// around the cursor, so a trial of a million events steps as fast as one
// of ten.

// ExploreMaxEvents bounds the events of a trial the explorer embeds: past
// it the page would pass 30 MB; the page says how many it leaves out.
const ExploreMaxEvents = 1 << 20

// ExploreMaxNodes bounds the lanes of an explorer page, as the incident
// view's leadership time-line is bounded: a lane per process, and the
// header claims the size.
const ExploreMaxNodes = 1024

// Explore is what an explorer page shows.
type Explore struct {
	Trace     io.Reader
	TraceName string // the file, for errors and the page's heading
	// Select chooses the trial among the trace's; nil takes the trace's
	// only trial. Exactly one trial must be chosen.
	Select func(h TraceHeader) bool
	// Rows are the run's results, when known: the trial's row (matched by
	// its header, seed included; the last that matches) gives T and the
	// violation the page jumps to. They are read once the trial is, and
	// only its row is kept: a big run's results are hundreds of
	// megabytes as rows. Nil: unknown.
	Rows Rows
	// IDs gives the identities by position of the trial of row r, as its
	// decisions name leaders, or nil when they are unknown: lanes are then
	// labelled with positions only, and no process can be shown as
	// leading itself. Nil: unknown.
	IDs func(r *Row) []string
	// Terms says whether the algorithm's messages carry the sender's term
	// or epoch in their A field (the quorum algorithms): the state shows
	// it. Nil: none does.
	Terms func(algorithm string) bool
	// Maintenance says which message kinds are maintenance (heartbeats):
	// hidden until the reader shows them. Nil: none is.
	Maintenance func(kind string) bool
	Generator   string // the program and version, in the page's footer
}

// TrialName names a trial as `run --trial` and `explore --trial` read it:
// SCENARIO/ALGORITHM/VARIANT/N/TRIAL.
func (h TraceHeader) TrialName() string {
	return fmt.Sprintf("%s/%s/%s/%d/%d", h.Scenario, h.Algorithm, h.Variant, h.Nodes, h.Trial)
}

// TrialChoiceError says the trace holds no trial, or several, that the
// selection chose; Names lists what it holds (at most ten).
type TrialChoiceError struct {
	Chosen int
	Names  []string
	More   int // trials past Names
}

func (e *TrialChoiceError) Error() string {
	list := strings.Join(e.Names, ", ")
	if e.More > 0 {
		list += fmt.Sprintf(" and %d more", e.More)
	}
	switch {
	case len(e.Names) == 0:
		return "the trace holds no trial: no header line {\"trial\":…} (run --trace writes them)"
	case e.Chosen == 0:
		return "the trace holds no such trial; it holds " + list
	}
	return fmt.Sprintf("%d trials of the trace match; name one with --trial: %s", e.Chosen, list)
}

// WriteExplore writes the explorer page of the trial x chooses.
func WriteExplore(w io.Writer, x Explore) error {
	tr, trialErr := readExploreTrial(x)
	row, err := exploreRow(x.Rows, tr)
	if err != nil {
		return err // the results' error first, as when they were read before the trace
	}
	if trialErr != nil {
		return trialErr
	}
	d := exploreDataOf(tr, row, x)
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encoding the explorer's data: %w", err)
	}
	p := newPage(fmt.Sprintf("electbench explore: %s/%s N=%d trial %d", tr.Algorithm, tr.Variant, tr.Nodes, tr.Trial))
	head := []run{txtf("Scenario %s, seed %d, %d events", cmpOr(tr.Scenario, "ad hoc"), tr.Seed, tr.Total)}
	if tr.Truncated {
		head = append(head, txtf(" (the first %d shown)", len(tr.Events)))
	}
	if x.TraceName != "" {
		head = append(head, txt(", from "), code(filepath.Base(x.TraceName)))
	}
	if row != nil && row.Violation != "" {
		head = append(head, txt(". Violation: "), code(d.ViolText))
	}
	p.para("meta", append(head, txt("."))...)
	if d.IDs == nil {
		p.note("Lanes are positions: the trial's identities are not known (explore the run's directory, whose results give them), so no process is shown as leading itself.")
	}
	p.svg(exploreMarkup(string(data))) // the controls, the diagram and the state, drawn by the script
	p.note("Time runs down, one row per event; an arrow is a message from its send to its delivery, labelled with its kind and what it carries; a dashed arrow ending in a cross, a message lost or dropped at a crashed process. Shaded: faults. Rows below the cursor are what has not happened yet. Keys: ← → step, space plays.")
	if x.Generator != "" {
		p.para("meta", txt("Written by "+x.Generator+"."))
	}
	return p.write(w)
}

// exploreRow is the row of trial tr among rows (the last that matches),
// nil when none does or there is no trial; it reads the rows even then, so
// that results that cannot be read are said whatever the trace holds.
func exploreRow(rows Rows, tr *TraceTrial) (*Row, error) {
	if rows == nil {
		return nil, nil
	}
	var row *Row
	err := rows(func(r *Row) error {
		if tr != nil && rowTraceKey(r) == tr.key() {
			row = new(Row)
			*row = *r // r is reused for the next row (ScanCSV)
		}
		return nil
	})
	return row, err
}

// readExploreTrial reads the one trial x chooses, every event up to
// ExploreMaxEvents.
func readExploreTrial(x Explore) (*TraceTrial, error) {
	var names []string
	chosen, seen := 0, 0
	trs, err := readTrace(x.Trace, func(h TraceHeader) (traceWant, bool) {
		if seen++; seen <= 10 {
			names = append(names, h.TrialName())
		}
		if x.Select != nil && !x.Select(h) {
			return traceWant{}, false
		}
		chosen++
		// Only the first chosen trial's events are kept: the others are
		// counted to say the choice was ambiguous.
		return traceWant{max: ExploreMaxEvents, around: -1}, chosen == 1
	})
	if err != nil {
		return nil, &TraceError{Name: cmpOr(x.TraceName, "trace"), Err: err}
	}
	if chosen != 1 {
		return nil, &TrialChoiceError{Chosen: chosen, Names: names, More: seen - len(names)}
	}
	tr := trs[0]
	if tr.Nodes < 1 {
		return nil, &TraceError{Name: cmpOr(x.TraceName, "trace"), Err: fmt.Errorf("trial %s has %d processes", tr.TrialName(), tr.Nodes)}
	}
	if tr.Nodes > ExploreMaxNodes {
		return nil, &TraceError{Name: cmpOr(x.TraceName, "trace"),
			Err: fmt.Errorf("trial %s has %d processes: the explorer draws a lane each, for at most %d", tr.TrialName(), tr.Nodes, ExploreMaxNodes)}
	}
	return tr, nil
}

// exploreData is the trial as the page's script reads it: one array per
// field, an entry per event, which JSON keeps small (a 50,000-event trial
// is 1.4 MB) and the script indexes without building objects.
type exploreData struct {
	Nodes int      `json:"n"`
	IDs   []string `json:"ids"`
	Names []string `json:"names"` // each process as people read it (processName), as the report's diagrams name it
	TNs   float64  `json:"tns"`   // T in nanoseconds; 0 writes times in ms
	Terms bool     `json:"terms"`
	Kinds []string `json:"kinds"`
	Maint []bool   `json:"maint"` // by kind
	Evs   []string `json:"evs"`   // event names, indexed by Ev
	Ev    []int    `json:"ev"`
	T     []int64  `json:"t"`
	P     []int    `json:"p"`    // the process; a message's sender
	Q     []int    `json:"q"`    // a message's receiver; whom a suspicion names; -1
	K     []int    `json:"k"`    // a message's kind; -1
	S     []int    `json:"s"`    // into Strs: a message's label, a timer, a leader, a fault, a note; -1
	A     []int64  `json:"a"`    // a message's A field (term or epoch)
	Pair  []int    `json:"pair"` // a send's delivery (recv, drop or lose), a delivery's send; -1
	Strs  []string `json:"strs"`
	// Faults are the fault windows as spans of events [from, to] (to = -1:
	// to the end), with their labels.
	Faults    []exploreFault `json:"faults"`
	Violation int            `json:"violation"` // the violating event; -1
	ViolText  string         `json:"violText"`
}

type exploreFault struct {
	From  int    `json:"from"`
	To    int    `json:"to"`
	Label string `json:"label"`
}

// exploreEvs are the event names the page knows; others are "other".
var exploreEvs = []string{"start", "initiate", "send", "recv", "drop", "dup", "lose", "timer", "suspect",
	"decide", "crash", "restart", "pause", "resume", "fault", "note", "other"}

func exploreDataOf(tr *TraceTrial, row *Row, x Explore) *exploreData {
	n := len(tr.Events)
	d := &exploreData{Nodes: tr.Nodes, Terms: x.Terms != nil && x.Terms(tr.Algorithm), Evs: exploreEvs, Violation: -1,
		Ev: make([]int, n), T: make([]int64, n), P: make([]int, n), Q: make([]int, n), K: make([]int, n),
		S: make([]int, n), A: make([]int64, n), Pair: make([]int, n),
		Kinds: []string{}, Maint: []bool{}, Strs: []string{}, Faults: []exploreFault{}} // [] rather than null for the script
	if row != nil {
		d.TNs = row.TS * 1e9
		if x.IDs != nil {
			d.IDs = x.IDs(row)
		}
	}
	if len(d.IDs) != tr.Nodes {
		d.IDs = nil
	}
	d.Names = make([]string, tr.Nodes)
	for p := range d.Names {
		d.Names[p] = processName(p, d.IDs)
	}
	strs := map[string]int{}
	intern := func(s string) int {
		if s == "" {
			return -1
		}
		i, ok := strs[s]
		if !ok {
			i = len(d.Strs)
			strs[s] = i
			d.Strs = append(d.Strs, s)
		}
		return i
	}
	kinds := map[string]int{}
	sends := map[int64]int{}
	for i := range tr.Events {
		ev := &tr.Events[i]
		d.T[i], d.P[i], d.Q[i], d.K[i], d.S[i], d.Pair[i] = ev.T, ev.P, -1, -1, -1, -1
		d.Ev[i] = slices.Index(exploreEvs, ev.Ev)
		if d.Ev[i] < 0 {
			d.Ev[i] = len(exploreEvs) - 1
		}
		switch ev.Ev {
		case "send", "recv", "drop", "dup", "lose":
			d.P[i], d.Q[i], d.A[i] = ev.From, ev.To, ev.A
			k, ok := kinds[ev.Kind]
			if !ok {
				k = len(d.Kinds)
				kinds[ev.Kind] = k
				d.Kinds = append(d.Kinds, ev.Kind)
				d.Maint = append(d.Maint, x.Maintenance != nil && x.Maintenance(ev.Kind))
			}
			d.K[i], d.S[i] = k, intern(messageLabel(*ev))
			pairMessage(d, sends, i, ev)
		case "timer":
			d.S[i] = intern(ev.Timer)
		case "decide":
			d.S[i] = intern(ev.Leader)
		case "suspect":
			d.Q[i] = ev.Q
		case "fault":
			d.S[i] = intern(ForReader(ev.What, d.IDs))
		case "note":
			d.S[i] = intern(ev.Text)
		}
	}
	d.Faults = exploreFaults(tr.Events)
	for i := range d.Faults {
		d.Faults[i].Label = ForReader(d.Faults[i].Label, d.IDs)
	}
	if row != nil && row.Violation != "" {
		d.Violation, _ = violationStory(tr.Events, nil, row.Violation, d.TNs)
		d.ViolText = ForReader(row.Violation, d.IDs)
	}
	return d
}

// pairMessage pairs a send with its delivery by the message's id: the
// first delivery, drop or loss ends the send's arrow; a duplicate's
// delivery points back at the same send.
func pairMessage(d *exploreData, sends map[int64]int, i int, ev *TraceEvent) {
	if ev.Ev == "send" {
		sends[ev.ID] = i
		return
	}
	s, ok := sends[ev.ID]
	if !ok || ev.Ev == "dup" {
		return
	}
	d.Pair[i] = s
	if d.Pair[s] < 0 {
		d.Pair[s] = i
	}
}

// exploreFaults reads the trace's fault events into spans of events, by
// the rules FaultWindows reads a row's schedule with: the trace's own
// fault lines are the schedule as it was applied.
func exploreFaults(evs []TraceEvent) []exploreFault {
	var sched []string
	for _, ev := range evs {
		if ev.Ev == "fault" && ev.What != "" {
			sched = append(sched, "t="+time.Duration(ev.T).String()+":"+ev.What)
		}
	}
	// A row whose T is a nanosecond gives the windows in nanoseconds.
	windows := FaultWindows(&Row{Faults: strings.Join(sched, ";"), TS: 1e-9})
	out := []exploreFault{} // [] rather than null for the script
	for _, w := range windows {
		from := sort.Search(len(evs), func(i int) bool { return float64(evs[i].T) >= w.From })
		to := -1
		if !math.IsInf(w.Until, 1) {
			to = sort.Search(len(evs), func(i int) bool { return float64(evs[i].T) > w.Until }) - 1
		}
		out = append(out, exploreFault{From: from, To: to, Label: w.Label})
	}
	return out
}
