package timeline

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// Timeline is the one fault engine: it runs a trial's fault timeline on
// either runtime. It decides when each fault starts and heals (at the
// start, at a time, or at a trigger: election-start, leader-elected,
// after-messages), resolves its targets against the world as it is then,
// records the schedule, and acts only through the runtime's
// trial.Injector. The runtime owns the clock and the per-message shaping of
// links; the timeline owns everything else.
//
// A runtime calls Begin before any process boots, Arm once the workload's
// initiations are scheduled, and then, as they happen, Initiated (every
// initiation), Decided (every decision) and, when WantsSends, Sent (every
// message sent, with the run's count of election messages so far).
type Timeline struct {
	faults []trial.Fault
	state  []faultState
	inj    trial.Injector

	afterMsgs []pend // waiting for a message count
	onElected []pend // waiting for the first decision
	onStart   []pend // waiting for the first initiation
	sends     bool   // some start or heal waits for a message count
}

type faultState struct {
	state   uint8
	targets []int // resolved process targets
}

// fault states
const (
	fsPending uint8 = iota
	fsActive
	fsDone
)

// pend is a fault start (or heal) waiting for a trigger.
type pend struct {
	i   int
	end bool
}

// New validates a trial's faults and prepares their timeline. It returns
// nil when there is nothing to run.
func New(faults []trial.Fault) (*Timeline, error) {
	if len(faults) == 0 {
		return nil, nil
	}
	t := &Timeline{}
	for i := range faults {
		f := faults[i]
		if err := f.Validate(); err != nil {
			return nil, fmt.Errorf("fault %d (%s): %w", i, f.Name, err)
		}
		if f.Name == "" {
			f.Name = f.What()
		}
		t.faults = append(t.faults, f)
	}
	for i := range t.faults {
		f := &t.faults[i]
		t.sends = t.sends || f.Start.Trigger == trial.AfterMessages || f.End != nil && f.End.Trigger == trial.AfterMessages
	}
	t.state = make([]faultState, len(t.faults))
	return t, nil
}

// Needs is what the timeline's faults require of the runtime.
type Needs struct {
	// Links: some fault (not a --crash crash) is in the timeline, so every
	// message looks at the link effects in force.
	Links bool
	// Reorder: some fault can change a message's latency, so delivery
	// order may differ from send order.
	Reorder bool
	// Pause: some fault pauses processes.
	Pause bool
	// Slow: some fault makes processes slow (trial.EffSlow).
	Slow bool
}

// Needs says what the runtime must prepare before the run.
func (t *Timeline) Needs() Needs {
	var n Needs
	if t == nil {
		return n
	}
	for _, f := range t.faults {
		if f.Quiet {
			continue
		}
		n.Links = true
		n.Reorder = n.Reorder || f.OnLinks() && f.Link.Delays()
		n.Pause = n.Pause || f.Effect == trial.EffPause
		n.Slow = n.Slow || f.Effect == trial.EffSlow
	}
	return n
}

// WantsSends reports whether the timeline needs Sent for every message.
func (t *Timeline) WantsSends() bool { return t != nil && t.sends }

// Begin applies the faults that start before anyone boots.
func (t *Timeline) Begin(inj trial.Injector) {
	t.inj = inj
	for i := range t.faults {
		if f := &t.faults[i]; f.Start.Immediate() {
			t.activate(i, true, inj.Now())
		}
	}
}

// Arm schedules every other start and heal, or queues it on its trigger.
// startsAll says every process initiated as it booted: the election
// started at time 0.
func (t *Timeline) Arm(startsAll bool) {
	for i := range t.faults {
		f := &t.faults[i]
		if !f.Start.Immediate() {
			t.arm(f.Start, pend{i: i})
		}
		if f.End != nil {
			t.arm(*f.End, pend{i: i, end: true})
		}
	}
	if startsAll {
		t.fireAll(&t.onStart)
	}
}

// Settled reports whether nothing of the timeline is still to come or in
// force but crashes that last: every fault healed (or over, as a restart
// or a suspicion is once applied), or a crash with no restart to come.
// A fault waiting for a trigger that never comes keeps it unsettled.
func (t *Timeline) Settled() bool {
	if t == nil {
		return true
	}
	for i := range t.state {
		f := &t.faults[i]
		switch st := t.state[i].state; {
		case st == fsDone:
		case st == fsActive && f.Effect == trial.EffCrash && f.End == nil && f.For == 0:
		default:
			return false
		}
	}
	return true
}

// Initiated is told of every initiation; the first starts the election.
func (t *Timeline) Initiated() { t.fireAll(&t.onStart) }

// Decided is told of every decision; the first elects a leader.
func (t *Timeline) Decided() { t.fireAll(&t.onElected) }

// Sent is told, after an election message is sent, how many the run has
// sent so far: faults waiting for that many fire after the sending handler
// returns (a handler is atomic).
func (t *Timeline) Sent(messages int64) {
	if len(t.afterMsgs) == 0 {
		return
	}
	kept := t.afterMsgs[:0]
	for _, p := range t.afterMsgs {
		if w := t.when(p); messages >= w.K {
			t.fire(t.inj.Now()+w.Offset(t.inj.Rand()), p)
		} else {
			kept = append(kept, p)
		}
	}
	t.afterMsgs = kept
}

func (t *Timeline) fireAll(ps *[]pend) {
	if len(*ps) == 0 {
		return
	}
	for _, p := range *ps {
		t.fire(t.inj.Now()+t.when(p).Offset(t.inj.Rand()), p)
	}
	*ps = nil
}

func (t *Timeline) arm(w trial.When, p pend) {
	switch w.Trigger {
	case trial.AtStart:
		t.fire(w.Offset(t.inj.Rand()), p)
	case trial.AtTime:
		t.fire(w.At+w.Offset(t.inj.Rand()), p)
	case trial.AfterMessages:
		t.afterMsgs = append(t.afterMsgs, p)
	case trial.LeaderElected:
		t.onElected = append(t.onElected, p)
	case trial.ElectionStart:
		t.onStart = append(t.onStart, p)
	}
}

func (t *Timeline) fire(at time.Duration, p pend) {
	if p.end {
		t.inj.At(at, func() { t.heal(p.i) })
	} else {
		t.inj.At(at, func() { t.activate(p.i, false, at) })
	}
}

func (t *Timeline) when(p pend) trial.When {
	if p.end {
		return *t.faults[p.i].End
	}
	return t.faults[p.i].Start
}

// activate starts fault i now, which it was due to at `due`: a fault that
// lasts For heals For after due, not after now. On the simulator the two
// are one instant; live, a fault starts late by the timer's wake-up and the
// Toxiproxy calls that apply it, and timing its heal from then made every
// live cut last those milliseconds longer than the scenario says (a 30T cut
// at T = 1 ms took 33-34 ms, and a master's renewal sent in the extra
// milliseconds was lost).
func (t *Timeline) activate(i int, atStart bool, due time.Duration) {
	st := &t.state[i]
	if st.state != fsPending {
		return // healed before it started, or started already
	}
	st.state = fsActive
	f := &t.faults[i]
	inj := t.inj
	switch f.Effect {
	case trial.EffCrash:
		// Only the processes this fault crashes are its to restart.
		for _, p := range t.validTargets(f.Targets(inj)) {
			if inj.Alive(p) {
				st.targets = append(st.targets, p)
			}
		}
		for _, p := range st.targets {
			inj.Crash(p, atStart, f.Undetected)
		}
		t.note(i, "", st.targets)
	case trial.EffRestart:
		st.targets = t.validTargets(f.Targets(inj))
		t.note(i, "", st.targets)
		for _, p := range st.targets {
			inj.Restart(p)
		}
		st.state = fsDone
		return
	case trial.EffPause:
		st.targets = t.validTargets(f.Targets(inj))
		t.note(i, "", st.targets)
		for _, p := range st.targets {
			inj.Pause(p)
		}
	case trial.EffSlow:
		st.targets = t.validTargets(f.Targets(inj))
		t.note(i, "", st.targets)
		for _, p := range st.targets {
			inj.(trial.Slower).Slow(p, i, f.Service)
		}
	case trial.EffSuspect:
		st.targets = t.validTargets(f.Targets(inj))
		var observers []int
		if f.Observers != nil {
			observers = t.validTargets(f.Observers(inj))
		} else {
			observers = make([]int, inj.N())
			for p := range observers {
				observers[p] = p
			}
		}
		t.note(i, "", st.targets)
		for _, o := range observers {
			for _, q := range st.targets {
				if o != q {
					inj.Suspect(o, q)
				}
			}
		}
		st.state = fsDone
		return
	default:
		ls := f.Links(inj)
		f.Link.Apply(inj, trial.LinkEffect{ID: i, Links: ls, Toxicity: f.Toxicity}, true)
		t.note(i, ls.Text, nil)
	}
	if f.For > 0 {
		t.fire(due+f.For, pend{i: i, end: true})
	}
}

// Check reports the first fault the runtime behind inj cannot apply: a
// link effect whose shaping interface (trial.Shaping) it does not
// implement, or a slow process on a runtime that is no trial.Slower.
func (t *Timeline) Check(inj trial.Injector) error {
	if t == nil {
		return nil
	}
	for i := range t.faults {
		f := &t.faults[i]
		if f.OnLinks() && !f.Link.Apply(inj, trial.LinkEffect{}, false) {
			return fmt.Errorf("fault %d (%s): this runtime cannot apply %s to links", i, f.Name, f.Link.Name())
		}
		if _, ok := inj.(trial.Slower); f.Effect == trial.EffSlow && !ok {
			return fmt.Errorf("fault %d (%s): this runtime cannot make a process slow", i, f.Name)
		}
	}
	return nil
}

// heal ends fault i now; a fault healed before it started never starts.
func (t *Timeline) heal(i int) {
	st := &t.state[i]
	if st.state != fsActive {
		st.state = fsDone
		return
	}
	st.state = fsDone
	f := &t.faults[i]
	switch f.Effect {
	case trial.EffCrash:
		t.noteEnd("restart", i, st.targets)
		for _, p := range st.targets {
			t.inj.Restart(p)
		}
	case trial.EffPause:
		t.noteEnd("resume", i, st.targets)
		for _, p := range st.targets {
			t.inj.Resume(p)
		}
	case trial.EffSlow:
		t.noteEnd("heal", i, st.targets)
		for _, p := range st.targets {
			t.inj.(trial.Slower).Fast(p, i)
		}
	default:
		// Noted before it is lifted, as a start is noted once in force:
		// between the two entries the fault holds.
		t.noteEnd("heal", i, nil)
		t.inj.Heal(i)
	}
}

// validTargets drops out-of-range positions and duplicates, keeping order.
func (t *Timeline) validTargets(ps []int) []int {
	out := ps[:0:0]
	seen := map[int]bool{}
	n := t.inj.N()
	for _, p := range ps {
		if p >= 0 && p < n && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// note records fault i starting: "crash(3)", "partition(halves)[0,1|2,3]".
// The --crash flag's crashes are scheduled but not traced as faults.
func (t *Timeline) note(i int, links string, targets []int) {
	f := &t.faults[i]
	what := f.Name
	if targets != nil || !f.OnLinks() {
		what += "(" + trial.Positions(targets) + ")"
	} else if links != "" {
		what += "[" + links + "]"
	}
	t.inj.Note(what, !f.Quiet)
}

// noteEnd records fault i healing: "restart(3)", "resume(1)", "heal latency".
func (t *Timeline) noteEnd(verb string, i int, targets []int) {
	what := verb
	if verb == "heal" {
		what += " " + t.faults[i].Name
	} else {
		what += "(" + trial.Positions(targets) + ")"
	}
	t.inj.Note(what, true)
}
