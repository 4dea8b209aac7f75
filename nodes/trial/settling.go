package trial

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Settling is the rule that ends a quorum trial before its deadline once
// its election is over for good (nodes.Quorum.Settle), the same in both
// runtimes. A quorum algorithm never comes to rest: its leader's heartbeats
// (raft), lease renewals (chubby) or watches (zookeeper) go on for ever,
// and without the rule every trial runs to its deadline, (100N + 1000)·T by
// default, sending maintenance traffic that changes none of the election's
// figures.
//
// The runtime tells the rule of every election event as it happens (Event:
// an election message sent, an election timer expired, a decision, an
// initiation, a suspicion, a fault starting or healing) and, once nothing
// of the kind has happened for the algorithm's window (Due), asks whether
// the trial has settled (Settled): no fault to come or in force, and every
// live process, a majority of the cluster, believing one live leader. If
// so the trial ends there: under the algorithm's assumptions (the window's
// contract, nodes.Quorum.Settle) nothing the election's columns count
// could happen later. If not, the rule looks again a window later.
type Settling struct {
	window time.Duration
	next   time.Duration // the earliest instant at which to look
}

// NewSettling returns the settling rule of a trial whose machines run
// configuration mc, or nil when the trial runs to its deadline: the
// algorithm is not a quorum algorithm that declares a window, its
// configuration assures no steady state (a window of 0), the latency
// model has no largest delay (normal, exponential: a message may outlast
// any window), the detector is not the perfect one (a heartbeat or
// inaccurate detector may suspect anyone at any time), or the trial asks
// to run to its deadline (Config.KeepRunning).
func NewSettling(cfg *Config, mc nodes.Config) (*Settling, error) {
	if cfg.KeepRunning || cfg.Algorithm == nil || cfg.Algorithm.Quorum == nil || cfg.Algorithm.Quorum.Settle == nil ||
		!Bounded(cfg.Latency) || cfg.DetectorOrDefault().Kind != "perfect" {
		return nil, nil
	}
	w, err := cfg.Algorithm.Quorum.Settle(mc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Algorithm.Name, err)
	}
	if w <= 0 {
		return nil, nil
	}
	return &Settling{window: w, next: w}, nil
}

// Window is the time without an election event after which the rule looks.
func (s *Settling) Window() time.Duration { return s.window }

// Event notes an election event at `at`: the window starts again.
func (s *Settling) Event(at time.Duration) { s.next = max(s.next, at+s.window) }

// Next is the earliest instant at which Due can hold.
func (s *Settling) Next() time.Duration { return s.next }

// Due reports whether nothing of the election has happened for a whole
// window at now, so that the runtime should ask Settled.
func (s *Settling) Due(now time.Duration) bool { return now >= s.next }

// Settled reports whether the trial has settled at now (called when Due):
// quiet says the runtime has nothing of a fault still to come or in force
// (the timeline's faults done or permanent crashes, no suspicion or restart
// pending); alive and ranks are by position. When it has not, the rule
// looks again a window later.
func (s *Settling) Settled(now time.Duration, quiet bool, d *Decisions, alive []bool, ranks nodes.Ranks) bool {
	if quiet && d.Agreement(alive).Settled(alive, ranks) {
		return true
	}
	s.next = now + s.window
	return false
}

// Agreement is what the live processes' latest decisions say together.
type Agreement struct {
	All     bool          // every live process decided
	Agree   bool          // every live process that decided believes First's leader
	First   int           // the first live process that decided; -1 if none did
	Dissent int           // the first live process that believes another; -1 if none does
	At      time.Duration // the latest decision of a live process
	Leader  nodes.Rank    // First's leader; zero if none decided
	Live    int           // live processes
}

// Agreement reads the live processes' latest decisions together.
func (d *Decisions) Agreement(alive []bool) Agreement {
	a := Agreement{All: true, Agree: true, First: -1, Dissent: -1}
	for p := range d.list {
		if !alive[p] {
			continue
		}
		a.Live++
		x := &d.list[p]
		if x.count == 0 {
			a.All = false
			continue
		}
		a.At = max(a.At, x.at)
		if a.First < 0 {
			a.First, a.Leader = p, d.leaders.Rank(x.leader)
		} else if a.Agree && x.leader != d.list[a.First].leader {
			a.Agree, a.Dissent = false, p
		}
	}
	return a
}

// Settled reports whether a quorum algorithm's election is over as far as
// the decisions tell: every live process, a majority of the cluster,
// believes one leader, and that leader is live.
func (a Agreement) Settled(alive []bool, ranks nodes.Ranks) bool {
	if !a.All || !a.Agree || a.First < 0 || a.Live < len(alive)/2+1 {
		return false
	}
	for p := range ranks.Len() {
		if ranks.CmpTo(p, &a.Leader) == 0 {
			return alive[p]
		}
	}
	return false
}
