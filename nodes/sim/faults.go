package sim

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Trigger says when a crash happens.
type Trigger uint8

const (
	AtStart       Trigger = iota // before the run: the process never starts
	AtTime                       // at a virtual time
	AfterMessages                // right after the K-th election message is sent
	LeaderElected                // at the first decision of the run
)

// Crash is one crash-stop fault: from its instant on the process receives
// nothing, sends nothing and its timers never fire. Messages sent to it are
// still counted as sent (and lost).
type Crash struct {
	Pos  int           // the position to crash; CurrentLeader for whoever is leader then
	When Trigger       //
	At   time.Duration // for AtTime
	K    int64         // for AfterMessages
}

// CurrentLeader as a Crash position means the leader named by the latest
// decision at the crash's instant (the highest process if nobody decided yet).
const CurrentLeader = -1

// CrashRecord is what happened to one crash.
type CrashRecord struct {
	Pos            int           // the process crashed
	At             time.Duration // when
	WasLeader      bool          // the latest decision named it, or it was the highest and nobody had decided
	FirstSuspicion time.Duration // when a detector first suspected it; -1 if none did
}

func (c Crash) validate(n int) error {
	if c.Pos != CurrentLeader && (c.Pos < 0 || c.Pos >= n) {
		return fmt.Errorf("sim: crash of position %d out of range 0..%d", c.Pos, n-1)
	}
	if c.When == AtStart && c.Pos == CurrentLeader {
		return fmt.Errorf("sim: there is no leader to crash at the start")
	}
	if c.When == AtTime && c.At < 0 {
		return fmt.Errorf("sim: crash at negative time %v", c.At)
	}
	if c.When == AfterMessages && c.K < 1 {
		return fmt.Errorf("sim: crash after %d messages: need at least 1", c.K)
	}
	return nil
}

// fault turns a crash into the first faults of the timeline: the same
// engine applies crashes from the command line and from scenarios.
func (c Crash) fault() Fault {
	pos := c.Pos
	return Fault{
		Effect: EffCrash, Name: "crash", legacy: true,
		Start: When{Trigger: c.When, At: c.At, K: c.K},
		Targets: func(v View) []int {
			if pos == CurrentLeader {
				return []int{v.s.currentLeader()}
			}
			return []int{pos}
		},
	}
}

// currentLeader is the process named by the latest decision, or the highest
// alive process when nobody has decided.
func (s *sim) currentLeader() int {
	if s.lastDecided >= 0 {
		if p, ok := s.position(s.res.Decisions[s.lastDecided].Leader); ok {
			return p
		}
	}
	best := -1
	for p := range s.n {
		if s.procs[p].alive && (best < 0 || s.ranks[best].Less(s.ranks[p])) {
			best = p
		}
	}
	return max(best, 0)
}

// position finds the process of rank r.
func (s *sim) position(r nodes.Rank) (int, bool) {
	if s.byRank == nil {
		s.byRank = make(map[nodes.Rank]int, s.n)
		for i, r := range s.ranks {
			s.byRank[r] = i
		}
	}
	p, ok := s.byRank[r]
	return p, ok
}

// crash stops p now. undetected crashes are never suspected by any
// detector's schedule (heartbeats still notice the silence).
func (s *sim) crash(p int32, atStart, undetected bool) {
	if !s.procs[p].alive {
		return
	}
	wasLeader := s.currentLeader() == int(p)
	s.procs[p].alive = false
	s.res.Crashes = append(s.res.Crashes, CrashRecord{Pos: int(p), At: time.Duration(s.now), WasLeader: wasLeader, FirstSuspicion: -1})
	s.trace.event(s.now, "crash", int(p))
	if s.cfg.Observer != nil {
		s.cfg.Observer.Crashed(time.Duration(s.now), int(p))
	}
	if !undetected {
		s.detectCrash(p, atStart)
	}
}
