package harness

import (
	"fmt"
	"time"
)

// Stage is a step of a live trial's set-up, in the order they come.
type Stage int

const (
	// Starting: node processes started, each reporting its address and
	// identity, which the harness checks (Setup.Done of Setup.Total).
	Starting Stage = iota
	// Proxying: every link's proxy made or found on the kept cluster
	// (Setup.Made, Setup.Kept) and its latency set; Done reaches Total
	// (the links) once they are ready.
	Proxying
	// Linking: the nodes' links up or refused, after a handshake at each
	// end (Setup.Done of Setup.Total links).
	Linking
	// Running: the set-up is over and the run starts.
	Running
)

var stageNames = [...]string{Starting: "starting", Proxying: "proxying", Linking: "linking", Running: "running"}

func (s Stage) String() string {
	if s < 0 || int(s) >= len(stageNames) {
		return fmt.Sprintf("Stage(%d)", int(s))
	}
	return stageNames[s]
}

// Setup is where a live trial's set-up stands, as Options.Progress is told.
type Setup struct {
	// Trial counts the runtime's trials from 1, as live.log names them;
	// Algorithm, Variant, Nodes and Seed are the trial's configuration
	// (the seed tells the trials of one configuration apart).
	Trial     int
	Algorithm string
	Variant   string
	Nodes     int
	Seed      uint64

	Stage Stage
	// Done of Total: processes up (Starting), links with their proxy
	// ready (Proxying), links up or refused (Linking).
	Done, Total int
	// Made and Kept are the proxies of the trial's links made for it and
	// found on the kept cluster (from Proxying on).
	Made, Kept int
	// Elapsed is the time since the set-up began.
	Elapsed time.Duration
}

// progressEvery is the least time between two calls of Options.Progress
// within a stage.
const progressEvery = 100 * time.Millisecond

// setupProgress tells Options.Progress how a trial's set-up goes: the
// first and the last state of every stage, and between them at most one
// call per progressEvery, so that a cluster of thousands of processes and
// links costs the harness's loop a few calls, not one per line.
type setupProgress struct {
	f           func(Setup)
	now         func() time.Time // time.Now; tests set another clock
	s           Setup
	began, last time.Time
	reported    bool // s was passed to f
}

// newSetupProgress tells f of the set-up of the trial s names.
func newSetupProgress(f func(Setup), s Setup) *setupProgress {
	s.Stage = -1
	return &setupProgress{f: f, now: time.Now, s: s}
}

// stage begins stage s at done of total.
func (sp *setupProgress) stage(s Stage, done, total int) {
	if sp.f == nil {
		return
	}
	now := sp.now()
	if sp.began.IsZero() {
		sp.began = now
	}
	if sp.s.Stage >= 0 && !sp.reported {
		// The last state of the stage before, held back by the rate limit.
		sp.call(now)
	}
	sp.s.Stage, sp.s.Done, sp.s.Total = s, done, total
	sp.call(now)
}

// progress moves the current stage to done (of its total), telling
// Options.Progress when it is complete or progressEvery has passed.
func (sp *setupProgress) progress(done int) {
	if sp.f == nil || done == sp.s.Done {
		return
	}
	sp.s.Done, sp.reported = done, false
	if now := sp.now(); done >= sp.s.Total || now.Sub(sp.last) >= progressEvery {
		sp.call(now)
	}
}

// proxies notes the proxies made and kept for the trial's links.
func (sp *setupProgress) proxies(made, kept int) { sp.s.Made, sp.s.Kept = made, kept }

func (sp *setupProgress) call(now time.Time) {
	sp.s.Elapsed = now.Sub(sp.began)
	sp.last, sp.reported = now, true
	sp.f(sp.s)
}
