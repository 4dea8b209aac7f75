package trial

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Config describes one trial, whatever runs it: the simulator and the live
// harness take the same value.
type Config struct {
	Algorithm  *nodes.Algorithm
	Variant    string       // "" for the algorithm's default
	Params     nodes.Params // algorithm parameters, as typed by the user
	Ranks      nodes.Ranks  // one per process, by position (ring order: successor = next); distinct and non-zero
	Initiators []int        // positions told to initiate at time 0, in this order
	Latency    Latency      // link latency model; its mean is T
	Seed       uint64       // seeds every random draw of the trial
	// Deadline is when a run that has not come to rest is stopped; 0 means
	// DefaultDeadline.
	Deadline time.Duration
	// KeepRunning runs a quorum trial to its deadline even once its
	// election is over for good (Settling): to measure its steady
	// traffic over a fixed time, or to check that the rule ends trials
	// only where nothing the election's columns count comes after.
	KeepRunning bool
	// Unit is the unit the machines read their parameters in ("T1 = 2T")
	// and take D in (BoundIn); 0 means T, as on the simulator. A live
	// trial's machines read them in LiveUnit; the simulator given that
	// unit models the live trial's timing (a live trial's cost estimate).
	Unit time.Duration
	// Faults is the trial's fault timeline: network effects, crashes and
	// restarts, pauses, false suspicions, each resolved when it starts.
	Faults []Fault
	// Detector is the failure detector; the zero value means
	// DefaultDetector (perfect with D = 10T).
	Detector Detector
	// Events, when set, receives the trial's events as they happen (the
	// checker, a trace); only the kinds it wants (Selective) are built.
	Events Sink
	// Budget bounds the trial's events and pending events; zero fields take
	// DefaultBudget's.
	Budget Budget
	// Processed, when set, is told the trial's progress: the simulator
	// adds the events it has processed as it goes (every 65,536) and
	// takes them back when the trial ends, so that a counter shared by a
	// run's trials holds what its running trials have done (the ETA of a
	// run of a few long trials).
	Processed *atomic.Int64
	// Draws, when set, is a prefix of the trial's random draws, taken
	// before the seeded generators' (a scenario's draws:, a shrinker's
	// candidate); the simulator alone reads it.
	Draws *Draws
	// Record, when set, receives the trial's draws (up to MaxRecorded of
	// each stream) as the simulator makes them: a shrinker edits them.
	Record *Draws
}

// DefaultConfig is the reference model (ALGORITHMS.md, "The reference
// model"): constant latency T = 1ms, the default detector, no faults, seed
// 1. Set the algorithm and the ranks before running it.
func DefaultConfig() Config {
	return Config{Latency: Constant(time.Millisecond), Seed: 1}
}

// DefaultDeadline is the time after which a run that has not gone quiet is
// stopped: generous for every algorithm of ALGORITHMS.md, whose turnarounds
// are at most a few N·T.
func DefaultDeadline(n int, t time.Duration) time.Duration {
	return time.Duration(100*n+1000) * t
}

// LiveUnit is the unit T in which a live trial's machines read their
// parameters ("T1 = 2T"): the link latency's mean t plus an allowance for
// the processing of two runtimes and a proxy, max(5ms, t/2) when
// allowance is 0 (generous: a loaded host delays processes by
// milliseconds).
func LiveUnit(t, allowance time.Duration) time.Duration {
	if allowance <= 0 {
		allowance = max(5*time.Millisecond, t/2)
	}
	return t + allowance
}

// T is the mean one-way latency, the unit of turnaround_t.
func (c *Config) T() time.Duration { return c.Latency.Mean() }

// BoundIn is the delay bound D of machines whose parameters are read in
// unit: the latency model's bound plus what unit adds to T (live, the
// runtime's processing allowance; on the simulator unit is T and D the
// model's bound).
func (c *Config) BoundIn(unit time.Duration) time.Duration { return c.Latency.Bound() + unit - c.T() }

// UnitOrT is the unit the machines read their parameters in: Unit, or T.
func (c *Config) UnitOrT() time.Duration {
	if c.Unit > 0 {
		return c.Unit
	}
	return c.T()
}

// VariantName is the variant that runs: Variant, or the algorithm's default.
func (c *Config) VariantName() string {
	if c.Variant == "" {
		return c.Algorithm.Variants[0].Name
	}
	return c.Variant
}

// DeadlineOrDefault is the deadline that applies: the one set, or
// DefaultDeadline raised to what the algorithm needs at its parameters
// (nodes.Algorithm.MinDeadline).
func (c *Config) DeadlineOrDefault() time.Duration {
	if c.Deadline > 0 {
		return c.Deadline
	}
	if c.Algorithm == nil || c.Algorithm.MinDeadline == nil {
		return DefaultDeadline(c.Ranks.Len(), c.T())
	}
	unit := c.UnitOrT()
	return DeadlineFor(c.Algorithm, nodes.Config{Variant: c.VariantName(), Params: c.Params, N: c.Ranks.Len(), T: unit, D: c.BoundIn(unit)}, c.T())
}

// DeadlineFor is the default deadline of algorithm a at cfg, whose
// latency has mean t: DefaultDeadline, or a's MinDeadline when longer.
func DeadlineFor(a *nodes.Algorithm, cfg nodes.Config, t time.Duration) time.Duration {
	d := DefaultDeadline(cfg.N, t)
	if a != nil && a.MinDeadline != nil {
		d = max(d, a.MinDeadline(cfg))
	}
	return d
}

// DetectorIn is the detector that runs, as processes reading their
// parameters in unit run it (Detector.In).
func (c *Config) DetectorIn(unit time.Duration) Detector {
	return c.DetectorOrDefault().In(c.Latency, unit)
}

// DetectorOrDefault is the detector the configuration names.
func (c *Config) DetectorOrDefault() Detector {
	if c.Detector.Kind == "" {
		return DefaultDetector(c.T())
	}
	return c.Detector
}

// MaxProcesses bounds a trial: positions are 32-bit everywhere.
const MaxProcesses = 1 << 30

// Validate reports the first thing wrong with the configuration, naming it.
// It never panics.
func (c *Config) Validate() error {
	n := c.Ranks.Len()
	switch {
	case c.Algorithm == nil:
		return errors.New("no algorithm")
	case c.Latency == nil:
		return errors.New("no latency model")
	case n < 2:
		return fmt.Errorf("%d processes; an election needs at least 2", n)
	case n > MaxProcesses:
		return fmt.Errorf("%d processes is more than a trial addresses", n)
	case c.Deadline < 0:
		return fmt.Errorf("negative deadline %v", c.Deadline)
	case c.Unit != 0 && c.Unit < c.T():
		return fmt.Errorf("parameter unit %v below the mean latency %v", c.Unit, c.T())
	case c.Budget.MaxEvents < 0:
		return fmt.Errorf("negative event budget %d", c.Budget.MaxEvents)
	case c.Budget.MaxInFlight < 0:
		return fmt.Errorf("negative in-flight budget %d", c.Budget.MaxInFlight)
	}
	for _, p := range c.Initiators {
		if p < 0 || p >= n {
			return fmt.Errorf("initiator position %d out of range 0..%d", p, n-1)
		}
	}
	for i := range n {
		if c.Ranks.IsZero(i) {
			return fmt.Errorf("process %d has the zero rank", i)
		}
	}
	for i := range c.Faults {
		if err := c.Faults[i].Validate(); err != nil {
			return fmt.Errorf("fault %d (%s): %w", i, c.Faults[i].Name, err)
		}
	}
	return c.Algorithm.CheckParams(c.Params)
}
