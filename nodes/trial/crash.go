package trial

import (
	"fmt"
	"time"
)

// Trigger says when a fault starts or heals (When).
type Trigger uint8

const (
	AtStart       Trigger = iota // before the run: the process never starts
	AtTime                       // at a virtual time
	AfterMessages                // right after the K-th election message is sent
	LeaderElected                // at the first decision of the run
)

// CurrentLeader as a crash's position (CrashFault) means the leader named
// by the latest decision at the crash's instant (the highest live process
// if nobody decided yet).
const CurrentLeader = -1

// CrashFault is a crash-stop of position pos (or CurrentLeader) at w, as
// the --crash flag's crashes run: quiet, in the schedule but not traced as
// a scenario's fault, and not making the run's links look at link effects.
// From its instant the process receives nothing, sends nothing and its
// timers never fire; messages sent to it are still counted as sent (and
// lost). A position out of range crashes nobody.
func CrashFault(pos int, w When) Fault {
	return Fault{Effect: EffCrash, Name: "crash", Quiet: true, Start: w,
		Targets: func(v View) []int {
			if pos == CurrentLeader {
				return []int{Leading(v)}
			}
			return []int{pos}
		}}
}

// Leading is the process named by the latest decision, or the highest
// live process when nobody has decided.
func Leading(v View) int {
	if p := v.Leader(); p >= 0 {
		return p
	}
	best := -1
	for p := range v.N() {
		if v.Alive(p) && (best < 0 || v.Rank(best).Less(v.Rank(p))) {
			best = p
		}
	}
	return max(best, 0)
}

// CrashRecord is what happened to one crash.
type CrashRecord struct {
	Pos            int           // the process crashed
	At             time.Duration // when
	WasLeader      bool          // the latest decision named it, or it was the highest and nobody had decided
	FirstSuspicion time.Duration // when a detector first suspected it; -1 if none did
}

// Dispute is one process's report that it refused another's identity: By
// accused Of, or, with Path, By's link to Of led to another identity (the
// path, a proxy pointed elsewhere, is at fault, not Of).
type Dispute struct {
	By, Of int
	Path   bool
}

// String is "BY>OF", or "BY>path(BY>OF)" for the path's fault.
func (d Dispute) String() string {
	if d.Path {
		return fmt.Sprintf("%d>path(%d>%d)", d.By, d.By, d.Of)
	}
	return fmt.Sprintf("%d>%d", d.By, d.Of)
}
