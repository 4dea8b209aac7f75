package trial

import (
	"fmt"
	"time"
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

// Validate checks the crash against a run of n processes.
func (c Crash) Validate(n int) error {
	if c.Pos != CurrentLeader && (c.Pos < 0 || c.Pos >= n) {
		return fmt.Errorf("crash of position %d out of range 0..%d", c.Pos, n-1)
	}
	if c.When == AtStart && c.Pos == CurrentLeader {
		return fmt.Errorf("there is no leader to crash at the start")
	}
	if c.When == AtTime && c.At < 0 {
		return fmt.Errorf("crash at negative time %v", c.At)
	}
	if c.When == AfterMessages && c.K < 1 {
		return fmt.Errorf("crash after %d messages: need at least 1", c.K)
	}
	return nil
}
