package harness

import "time"

// schedule is a trial's clock and the harness actions it holds: the run's
// start on the host's shared monotonic clock (live.Mono) and on this
// process's, and the actions (a fault's start or heal, a detection) due
// later, which run on the trial's goroutine.
type schedule struct {
	t0      int64
	start   time.Time
	started bool
	// pending counts the actions scheduled and not yet done.
	pending int
	actions chan func()   // scheduled actions, due
	timers  []*time.Timer // of the scheduled actions, stopped at the end
	// over is closed at the end: scheduled actions no longer wait.
	over chan struct{}
	// early are the actions scheduled before the run's clock started
	// (heals of faults in force from the start): scheduled at its start.
	early []timed
	// due are the actions due now: run once the handler running now has
	// returned.
	due []func()
	// skew is how far the clock of each spawn index's host reads ahead
	// of the harness's, as estimated (clock.go); nil: one clock.
	skew []time.Duration
}

type timed struct {
	at time.Duration
	f  func()
}

func newSchedule() *schedule {
	return &schedule{actions: make(chan func(), 64), over: make(chan struct{})}
}

// now is the time since the run started; 0 before.
func (s *schedule) now() time.Duration {
	if !s.started {
		return 0
	}
	return time.Since(s.start) // Go's monotonic clock: CLOCK_MONOTONIC, like live.Mono, read cheaply
}

// begin starts the run's clock at t0 on the shared clock.
func (s *schedule) begin(t0 int64) {
	s.t0, s.start, s.started = t0, time.Now(), true
}

// after runs f on the trial's goroutine d after t0, counting it as pending
// until then.
func (s *schedule) after(d time.Duration, f func()) {
	s.pending++
	s.timers = append(s.timers, time.AfterFunc(max(d-s.now(), 0), func() {
		select {
		case s.actions <- f:
		case <-s.over:
		}
	}))
}

// at runs f at time at on the trial's goroutine: at once after the
// handler running now if at has come, else when it comes. Before the
// run's clock starts (faults in force from the start), it waits for it.
func (s *schedule) at(at time.Duration, f func()) {
	switch {
	case !s.started:
		s.early = append(s.early, timed{at, f})
	case at <= s.now():
		s.pending++
		s.due = append(s.due, f)
	default:
		s.after(at, f)
	}
}

// armEarly schedules the actions held for the run's start.
func (s *schedule) armEarly() {
	for _, e := range s.early {
		s.after(e.at, e.f)
	}
	s.early = nil
}

// runDue runs the actions due now, in order, and any they make due.
func (s *schedule) runDue() {
	for len(s.due) > 0 {
		f := s.due[0]
		s.due = s.due[1:]
		s.pending--
		f()
	}
}

// stop ends the schedule: no action runs from now on.
func (s *schedule) stop() {
	for _, t := range s.timers {
		t.Stop()
	}
	close(s.over)
}
