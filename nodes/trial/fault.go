package trial

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Effect is what a process fault does. The scenario layer (chaos) names
// faults the way Toxiproxy and process signals do; each maps onto one of
// these, or onto a link effect (Shaping: Cut, Delay, Loss, ...), at the
// message level (docs/scenarios.md lists where the message level makes a
// toxic a no-op or equal to loss).
type Effect uint8

// Process effects act on the processes Fault.Targets resolves.
const (
	EffCrash   Effect = iota + 1 // crash-stop; healing restarts it
	EffRestart                   // a crashed process restarts as a fresh machine with the same rank
	EffPause                     // events to it are held until healed (resume); its timers fire late
	EffSuspect                   // Fault.Observers' detectors falsely suspect the targets, once
	EffSlow                      // each step of the targets costs Fault.Service more (Slower); healing ends it
)

var effectNames = [...]string{"", "crash", "restart", "pause", "suspect", "slow"}

// Slower is a runtime that can make a process slow (EffSlow): while in
// force, every step p takes (a delivery, a timer, a suspicion, an
// initiation) costs service more, one step after another, and its sends
// leave when its step completes; its detector keeps answering. id is the
// fault's index in the timeline: Fast(p, id) ends that fault's slowness
// of p (slow faults in force on one process add up). A runtime without
// it refuses a slow fault before the run.
type Slower interface {
	Slow(p, id int, service time.Duration)
	Fast(p, id int)
}

func (e Effect) String() string {
	if int(e) < len(effectNames) && e > 0 {
		return effectNames[e]
	}
	return "Effect(" + strconv.Itoa(int(e)) + ")"
}

// ElectionStart as a trigger fires at the first initiation of the run: the
// first process told to initiate, or time 0 for algorithms in which every
// process starts an election.
const ElectionStart Trigger = LeaderElected + 1

// When says when a fault starts or heals: at the start (before any process
// boots), at a virtual time, or at a trigger, plus Delay, plus (when Spread)
// an offset drawn uniformly from [SpreadLo, SpreadHi].
type When struct {
	Trigger Trigger
	At      time.Duration // AtTime
	K       int64         // AfterMessages: right after the K-th election message is sent
	Delay   time.Duration // added to the instant the trigger fires
	// Spread adds a random offset in [SpreadLo, SpreadHi], drawn from the
	// fault stream (View.Rand) when the trigger fires, so that both
	// runtimes draw the same offset for a seed.
	Spread             bool
	SpreadLo, SpreadHi time.Duration
}

// Immediate reports whether the instant is the start itself, with nothing
// added: before any process boots.
func (w When) Immediate() bool { return w.Trigger == AtStart && w.Delay == 0 && !w.Spread }

// Offset is what is added to the instant the trigger fires: Delay, plus
// the random offset drawn from r (the fault stream) when Spread.
func (w When) Offset(r *rand.Rand) time.Duration {
	if !w.Spread {
		return w.Delay
	}
	return w.Delay + w.SpreadLo + time.Duration(r.Int64N(int64(w.SpreadHi-w.SpreadLo)+1))
}

// Validate checks the instant's fields.
func (w When) Validate() error {
	switch {
	case w.Trigger > ElectionStart:
		return fmt.Errorf("unknown trigger %d", w.Trigger)
	case w.Trigger == AtTime && w.At < 0:
		return fmt.Errorf("negative time %v", w.At)
	case w.Trigger == AfterMessages && w.K < 1:
		return fmt.Errorf("after %d messages: need at least 1", w.K)
	case w.Delay < 0:
		return fmt.Errorf("negative delay %v", w.Delay)
	case w.Spread && (w.SpreadLo < 0 || w.SpreadHi < w.SpreadLo):
		return fmt.Errorf("random offset uniform(%v,%v): need 0 ≤ A ≤ B", w.SpreadLo, w.SpreadHi)
	}
	return nil
}

// Fault is one fault of the trial's timeline. Its targets are resolved when
// it starts, against the world as it is then: roles such as "the leader"
// change during a run.
type Fault struct {
	// Effect is a process fault's effect; Link a link fault's, with its
	// parameters. A fault has one of them.
	Effect Effect
	Link   Shaping
	// Name is how the schedule and the trace call it: "crash",
	// "partition(halves)", "latency".
	Name  string
	Start When
	// End heals the fault at a time or a trigger; For > 0 heals it that
	// long after it started, whichever comes first. With neither it lasts
	// to the end of the run. Healing a crash restarts the process, a pause
	// resumes it; restart and suspect act once and have nothing to heal.
	End *When
	For time.Duration

	// Targets resolves the processes of a process effect (for EffSuspect:
	// the processes suspected).
	Targets func(v View) []int
	// Observers resolves whose detectors suspect the targets (EffSuspect);
	// nil means every other process.
	Observers func(v View) []int
	// Links resolves the directed links of a link effect.
	Links func(v View) LinkSet
	// Toxicity is the probability that a given link of Links is affected,
	// drawn per link from the fault seed; 0 means 1 (every link).
	Toxicity float64

	Undetected bool // EffCrash: no detector ever suspects it (an incomplete detector)
	// Service is EffSlow's extra service time of each step (≥ 0).
	Service time.Duration
	// Quiet marks a crash of the --crash flag's (or CrashFault's): it
	// is in the schedule (the faults column) but not traced as a fault,
	// and it does not make the run's links look at link effects.
	Quiet bool
}

// LinkSet is a set of directed links, with a description for the schedule.
type LinkSet struct {
	Has  func(from, to int) bool
	Text string
}

// Validate checks the fault's own fields.
func (f *Fault) Validate() error {
	if err := f.Start.Validate(); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if f.End != nil {
		if err := f.End.Validate(); err != nil {
			return fmt.Errorf("heal: %w", err)
		}
	}
	switch {
	case f.Link != nil && f.Effect != 0:
		return fmt.Errorf("both a process effect (%s) and a link effect (%s)", f.Effect, f.Link.Name())
	case f.Link == nil && (f.Effect < EffCrash || f.Effect > EffSlow):
		return fmt.Errorf("unknown effect %d", f.Effect)
	case f.For < 0:
		return fmt.Errorf("negative duration %v", f.For)
	case f.Service < 0:
		return fmt.Errorf("negative service time %v", f.Service)
	case f.OnLinks() && f.Links == nil:
		return errors.New("a link effect needs Links")
	case !f.OnLinks() && f.Targets == nil:
		return errors.New("a process effect needs Targets")
	case f.Quiet && f.Effect != EffCrash:
		return fmt.Errorf("a quiet fault is a crash, not %s", f.What())
	case f.Toxicity < 0 || f.Toxicity > 1:
		return fmt.Errorf("toxicity %g outside [0, 1]", f.Toxicity)
	case f.OnLinks():
		return f.Link.Validate()
	}
	return nil
}

// OnLinks reports whether the fault acts on links rather than processes.
func (f *Fault) OnLinks() bool { return f.Link != nil }

// What names the fault's effect: "crash", "delay".
func (f *Fault) What() string {
	if f.Link != nil {
		return f.Link.Name()
	}
	return f.Effect.String()
}

// FaultEvent is one entry of the schedule a trial applied.
type FaultEvent struct {
	At   time.Duration
	What string // "crash(3)", "partition(halves)[0,1|2,3]", "heal partition(halves)", "restart(3)"
}

func (e FaultEvent) String() string { return "t=" + e.At.String() + ":" + e.What }

// View is the world as a fault sees it when it starts: the selectors of a
// scenario resolve against it. Each runtime implements it over its own state.
type View interface {
	// N is the number of processes; positions are 0..N-1 in ring order.
	N() int
	// Rank is the rank of position p.
	Rank(p int) nodes.Rank
	// Alive reports whether p has not crashed (or has restarted since).
	Alive(p int) bool
	// Leader is the position of the leader named by the latest decision,
	// or -1 if nobody has decided.
	Leader() int
	// Initiators are the positions the workload told to initiate at time
	// 0; every position for algorithms in which everyone initiates.
	Initiators() []int
	// Rand is the fault stream: seeded by the trial's seed, apart from
	// every other source, so faults never change the draws of fault-free
	// runs.
	Rand() *rand.Rand
	// Now is the time since the run started.
	Now() time.Duration
}

// Hosted is a View whose processes run on hosts (the live runtime with
// --netns): Host is position p's, of 0..Hosts()-1. Selectors of hosts
// (chaos: host(h)) resolve against it, and select nothing in a View that
// is not one (they are refused before such a run).
type Hosted interface {
	Hosts() int
	Host(p int) int
}

// AllPositions is every position of an n-process trial, 0 to n-1: the
// initiators when everyone starts, the observers when none are named.
func AllPositions(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Positions lists positions as "1,4,7", eliding long lists.
func Positions(ps []int) string {
	const most = 8
	var b strings.Builder
	for i, p := range ps {
		if i == most {
			fmt.Fprintf(&b, ",+%d", len(ps)-most)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(p))
	}
	return b.String()
}
