package timeline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// rig is a minimal runtime behind the timeline: a clock with a queue of
// actions, and a log of what the timeline asked of it.
type rig struct {
	now    time.Duration
	alive  []bool
	leader int
	queue  []queued
	log    []string
}

type queued struct {
	at time.Duration
	f  func()
}

func newRig(n int) *rig {
	w := &rig{alive: make([]bool, n), leader: -1}
	for i := range w.alive {
		w.alive[i] = true
	}
	return w
}

func (w *rig) N() int                { return len(w.alive) }
func (w *rig) Rank(p int) nodes.Rank { return nodes.RankOf(uint64(p + 1)) }
func (w *rig) Alive(p int) bool      { return w.alive[p] }
func (w *rig) Leader() int           { return w.leader }
func (w *rig) Initiators() []int     { return []int{0} }
func (w *rig) Rand() *rand.Rand      { return rand.New(rand.NewPCG(1, 2)) }
func (w *rig) Now() time.Duration    { return w.now }

func (w *rig) At(at time.Duration, f func()) { w.queue = append(w.queue, queued{at, f}) }
func (w *rig) Crash(p int, atStart, undetected bool) {
	w.alive[p] = false
	w.logf("crash %d start=%v undetected=%v", p, atStart, undetected)
}
func (w *rig) Restart(p int)             { w.alive[p] = true; w.logf("restart %d", p) }
func (w *rig) Pause(p int)               { w.logf("pause %d", p) }
func (w *rig) Resume(p int)              { w.logf("resume %d", p) }
func (w *rig) Suspect(o, q int)          { w.logf("suspect %d>%d", o, q) }
func (w *rig) Cut(l trial.LinkEffect)    { w.logf("cut #%d %s", l.ID, l.Links.Text) }
func (w *rig) Heal(id int)               { w.logf("heal #%d", id) }
func (w *rig) Note(what string, tr bool) { w.logf("note %s traced=%v", what, tr) }

func (w *rig) logf(format string, args ...any) {
	w.log = append(w.log, fmt.Sprintf("%v ", w.now)+fmt.Sprintf(format, args...))
}

// advance runs every queued action due by t, in time order (ties in
// scheduling order), as a runtime's control events.
func (w *rig) advance(t time.Duration) {
	for {
		i := -1
		for j, q := range w.queue {
			if q.at <= t && (i < 0 || q.at < w.queue[i].at) {
				i = j
			}
		}
		if i < 0 {
			w.now = t
			return
		}
		q := w.queue[i]
		w.queue = slices.Delete(w.queue, i, i+1)
		w.now = q.at
		q.f()
	}
}

// delayer adds the optional link-shaping interface for latency.
type delayer struct{ *rig }

func (d delayer) Delay(l trial.LinkEffect, p trial.Delay) {
	d.logf("delay #%d %v±%v", l.ID, p.Latency, p.Jitter)
}

const ms = time.Millisecond

func procs(ps ...int) func(trial.View) []int { return func(trial.View) []int { return ps } }

var every = func(trial.View) trial.LinkSet {
	return trial.LinkSet{Has: func(int, int) bool { return true }, Text: "all"}
}

func TestTimelineTriggers(t *testing.T) {
	end := trial.When{Trigger: trial.LeaderElected, Delay: ms}
	tl, err := New(
		[]trial.Fault{
			trial.CrashFault(2, trial.When{Trigger: trial.AtStart}),
			{Effect: trial.EffPause, Name: "pause", Targets: procs(1), Start: trial.When{Trigger: trial.ElectionStart, Delay: 2 * ms}, For: 3 * ms},
			{Link: trial.Cut{}, Name: "partition(x)", Links: every, Start: trial.When{Trigger: trial.AtTime, At: ms}, End: &end},
			{Effect: trial.EffSuspect, Name: "suspect", Targets: procs(0), Observers: procs(1, 0), Start: trial.When{Trigger: trial.AfterMessages, K: 3}},
			{Effect: trial.EffRestart, Name: "restart", Targets: procs(2, 2, 9), Start: trial.When{Trigger: trial.AtTime, At: 20 * ms}},
		})
	if err != nil {
		t.Fatal(err)
	}
	if n := tl.Needs(); !n.Links || !n.Pause || n.Reorder || !tl.WantsSends() {
		t.Fatalf("needs %+v, sends %v", n, tl.WantsSends())
	}
	w := newRig(3)
	tl.Begin(w)
	tl.Arm(false)
	tl.Sent(2) // not yet
	w.advance(ms)
	tl.Initiated()
	tl.Sent(3)
	w.advance(2 * ms)
	w.leader = 0
	tl.Decided()
	tl.Decided() // only the first decision is a trigger
	w.advance(30 * ms)
	want := []string{
		"0s crash 2 start=true undetected=false",
		"0s note crash(2) traced=false", // the --crash flag's: scheduled, not traced
		"1ms cut #2 all",
		"1ms note partition(x)[all] traced=true",
		"1ms note suspect(0) traced=true",
		"1ms suspect 1>0", // observers, never itself
		"3ms note pause(1) traced=true",
		"3ms pause 1",
		"3ms note heal partition(x) traced=true", // noted before lifted: until then it holds
		"3ms heal #2",
		"6ms note resume(1) traced=true",
		"6ms resume 1",
		"20ms note restart(2) traced=true", // duplicates and out-of-range targets dropped
		"20ms restart 2",
	}
	if got := strings.Join(w.log, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("log:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// A fault healed before it starts never starts; the current-leader crash
// resolves when it fires.
func TestTimelineHealBeforeStartAndLeaderCrash(t *testing.T) {
	early := trial.When{Trigger: trial.AtTime, At: ms}
	tl, err := New([]trial.Fault{
		trial.CrashFault(trial.CurrentLeader, trial.When{Trigger: trial.LeaderElected}),
		{Link: trial.Cut{}, Links: every, Start: trial.When{Trigger: trial.AtTime, At: 2 * ms}, End: &early}})
	if err != nil {
		t.Fatal(err)
	}
	w := newRig(4)
	tl.Begin(w)
	tl.Arm(true)
	w.advance(5 * ms)
	w.leader = 1
	tl.Decided()
	w.advance(6 * ms)
	want := "5ms crash 1 start=false undetected=false\n5ms note crash(1) traced=false"
	if got := strings.Join(w.log, "\n"); got != want {
		t.Fatalf("log:\n%s\nwant:\n%s", got, want)
	}
}

// A runtime that lacks a link-shaping interface is refused before the run,
// naming the fault.
func TestTimelineCheck(t *testing.T) {
	tl, err := New([]trial.Fault{{Link: trial.Delay{Latency: ms}, Name: "latency", Links: every}})
	if err != nil {
		t.Fatal(err)
	}
	w := newRig(2)
	if err := tl.Check(w); err == nil || !strings.Contains(err.Error(), "latency") {
		t.Fatalf("a runtime without Delayer: %v", err)
	}
	if err := tl.Check(delayer{w}); err != nil {
		t.Fatal(err)
	}
	tl.Begin(delayer{w})
	tl.Arm(false)
	w.advance(ms)
	if got := strings.Join(w.log, "\n"); got != "0s delay #0 1ms±0s\n0s note latency[all] traced=true" {
		t.Fatalf("log %q", got)
	}
	if _, err := New([]trial.Fault{{Link: trial.Loss{P: 2}, Links: every}}); err == nil {
		t.Fatal("an invalid fault was accepted")
	}
	if tl, err := New(nil); tl != nil || err != nil || tl.Needs() != (Needs{}) || tl.WantsSends() {
		t.Fatal("no faults: no timeline")
	}
}

// A random offset (leader-elected+uniform(0,75ms)) is drawn from the fault
// stream, View.Rand, when the trigger fires: the rig's stream decides it.
func TestTimelineRandomOffset(t *testing.T) {
	start := trial.When{Trigger: trial.LeaderElected, Delay: 5 * ms, Spread: true, SpreadLo: 10 * ms, SpreadHi: 75 * ms}
	tl, err := New([]trial.Fault{{Effect: trial.EffPause, Name: "pause", Targets: procs(1), Start: start}})
	if err != nil {
		t.Fatal(err)
	}
	w := newRig(3)
	tl.Begin(w)
	tl.Arm(false)
	w.advance(3 * ms)
	w.leader = 0
	tl.Decided()
	w.advance(time.Second)
	off := 10*ms + time.Duration(w.Rand().Int64N(int64(65*ms)+1))
	want := fmt.Sprintf("%v note pause(1) traced=true", 3*ms+5*ms+off)
	if len(w.log) != 2 || w.log[0] != want {
		t.Fatalf("log %q, want first %q", w.log, want)
	}
	if _, err := New([]trial.Fault{{Effect: trial.EffPause, Name: "p", Targets: procs(1),
		Start: trial.When{Trigger: trial.LeaderElected, Spread: true, SpreadLo: 2 * ms, SpreadHi: ms}}}); err == nil {
		t.Fatal("a reversed random offset was accepted")
	}
}

// A fault that lasts For heals For after it was due, not For after it
// began: a live runtime starts it late (its timer's wake-up, the Toxiproxy
// calls that apply it), and timing the heal from then made every live cut
// longer than the scenario's. On the simulator the two instants are one.
func TestHealFromWhenDue(t *testing.T) {
	tl, err := New([]trial.Fault{
		{Link: trial.Cut{}, Name: "partition(x)", Links: every, Start: trial.When{Trigger: trial.AtTime, At: 10 * ms}, For: 30 * ms},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := newRig(3)
	tl.Begin(w)
	tl.Arm(false)
	if len(w.queue) != 1 || w.queue[0].at != 10*ms {
		t.Fatalf("queue %+v: want the start at 10ms", w.queue)
	}
	start := w.queue[0]
	w.queue = nil
	w.now = 14 * ms // the runtime got to it 4 ms late
	start.f()
	if len(w.queue) != 1 || w.queue[0].at != 40*ms {
		t.Fatalf("queue %+v: want the heal at 40ms, 30ms after the start was due", w.queue)
	}
	w.advance(40 * ms)
	if want := []string{"14ms cut #0 all", "14ms note partition(x)[all] traced=true", "40ms note heal partition(x) traced=true", "40ms heal #0"}; !slices.Equal(w.log[:min(4, len(w.log))], want) {
		t.Fatalf("log %q, want %q", w.log, want)
	}
}

// slower adds the optional interface for slow processes.
type slower struct{ *rig }

func (s slower) Slow(p, id int, service time.Duration) { s.logf("slow %d #%d by %v", p, id, service) }
func (s slower) Fast(p, id int)                        { s.logf("fast %d #%d", p, id) }

// A slow fault needs a trial.Slower: refused before the run on a runtime
// without one; on one with it, it starts and heals with its fault's index
// and service, and the run needs to know (Needs.Slow).
func TestTimelineSlow(t *testing.T) {
	tl, err := New([]trial.Fault{{Effect: trial.EffSlow, Name: "slow", Service: 3 * ms, Targets: procs(1), Start: trial.When{Trigger: trial.AtTime, At: ms}, For: 2 * ms}})
	if err != nil {
		t.Fatal(err)
	}
	w := newRig(2)
	if err := tl.Check(w); err == nil || !strings.Contains(err.Error(), "cannot make a process slow") {
		t.Fatalf("a runtime without Slower: %v", err)
	}
	if err := tl.Check(slower{w}); err != nil || !tl.Needs().Slow {
		t.Fatalf("check %v, needs %+v", err, tl.Needs())
	}
	tl.Begin(slower{w})
	tl.Arm(false)
	w.advance(5 * ms)
	want := "1ms note slow(1) traced=true\n1ms slow 1 #0 by 3ms\n3ms note heal slow traced=true\n3ms fast 1 #0"
	if got := strings.Join(w.log, "\n"); got != want {
		t.Fatalf("log:\n%s\nwant:\n%s", got, want)
	}
	if _, err := New([]trial.Fault{{Effect: trial.EffSlow, Service: -ms, Targets: procs(1)}}); err == nil {
		t.Fatal("a negative service time was accepted")
	}
}
