package trial

import (
	"fmt"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Capabilities declare what a runtime can run. Each runtime declares them
// once, in its own package (sim.Capabilities, live.Capabilities), and every
// check reads that declaration: a flag or a scenario file before a run
// (workloads), the runtime itself before a trial starts. A limit is
// therefore written in one place, and a check cannot drift from another.
type Capabilities struct {
	Runtime  string // "sim" or "live": the runtime column of its rows
	MaxNodes int    // processes in one trial; 0: no bound of the runtime's own
	// Grain is the resolution of the link delays it applies: T is at least
	// one grain and a constant latency a whole number of them, for the
	// reason GrainWhy gives. Zero: any duration.
	Grain    time.Duration
	GrainWhy string
	// Detectors are the failure detectors it runs, as written on the
	// command line (perfect(D)); nil: every one.
	Detectors []string
	// Lacks are the fault effects it cannot inject, by the effect's name
	// (Fault.What: Effect.String for a process effect, Shaping.Name for a
	// link effect), each with why; it injects every other.
	Lacks map[string]string
	// MintsIDs says its nodes mint their own identities: the arrangement
	// only orders them, so minted arrangements and ranks drawn per trial
	// (epoch ranking) cannot apply.
	MintsIDs bool
	// OwnHeartbeats says its heartbeat detector is the nodes' own: a
	// suspect fault cannot make one suspect another under it.
	OwnHeartbeats bool
	// RestartsAtStart says a process crashed at the start can be restarted
	// (one that never ran has links to its peers to take up).
	RestartsAtStart bool
}

// CheckAlgorithm reports an algorithm the runtime cannot run: a live-only
// one (nodes.Algorithm.LiveOnly) anywhere but live.
func (c *Capabilities) CheckAlgorithm(a *nodes.Algorithm) error {
	if a.LiveOnly != "" && c.Runtime != "live" {
		return fmt.Errorf("%s runs only with --runtime live: %s", a.Name, a.LiveOnly)
	}
	return nil
}

// CheckNodes reports a cluster of n processes the runtime cannot hold.
func (c *Capabilities) CheckNodes(n int) error {
	if c.MaxNodes > 0 && n > c.MaxNodes {
		return fmt.Errorf("a %s cluster is at most %d processes", c.Runtime, c.MaxNodes)
	}
	return nil
}

// CheckLatency reports a latency model finer than the runtime's grain.
func (c *Capabilities) CheckLatency(l Latency) error {
	if c.Grain <= 0 {
		return nil
	}
	t := l.Mean()
	if t < c.Grain {
		return fmt.Errorf("%s, so T must be at least %v", c.GrainWhy, c.Grain)
	}
	if l.Constant() && t%c.Grain != 0 {
		return fmt.Errorf("%s; use %v or %v", c.GrainWhy, t.Truncate(c.Grain), t.Truncate(c.Grain)+c.Grain)
	}
	return nil
}

// CheckDetector reports a failure detector the runtime does not run.
func (c *Capabilities) CheckDetector(d Detector) error {
	if c.Detectors == nil || d.Kind == "" {
		return nil
	}
	for _, form := range c.Detectors {
		if kind, _, _ := strings.Cut(form, "("); kind == d.Kind {
			return nil
		}
	}
	return fmt.Errorf("the %s detector is simulator-only; %s runs take %s", d.Kind, c.Runtime, strings.Join(c.Detectors, " or "))
}

// CheckEffect reports a fault whose effect the runtime cannot inject, with
// why.
func (c *Capabilities) CheckEffect(f *Fault) error {
	why, ok := c.Lacks[f.What()]
	switch {
	case ok && f.OnLinks():
		return fmt.Errorf("runtime %s cannot apply %s to links: %s", c.Runtime, f.What(), why)
	case ok:
		return fmt.Errorf("runtime %s cannot apply %s: %s", c.Runtime, f.What(), why)
	}
	return nil
}

// Check reports what of cfg the runtime cannot run, if anything: the
// runtime's own guard before a trial starts (the flags and scenario files
// were checked against the same declaration before the run).
func (c *Capabilities) Check(cfg *Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := c.CheckAlgorithm(cfg.Algorithm); err != nil {
		return err
	}
	if err := c.CheckNodes(cfg.Ranks.Len()); err != nil {
		return fmt.Errorf("%d processes: %w", cfg.Ranks.Len(), err)
	}
	if err := c.CheckLatency(cfg.Latency); err != nil {
		return fmt.Errorf("latency %s: %w", cfg.Latency, err)
	}
	if err := c.CheckDetector(cfg.DetectorOrDefault()); err != nil {
		return err
	}
	for i := range cfg.Faults {
		f := &cfg.Faults[i]
		if err := c.CheckEffect(f); err != nil {
			return fmt.Errorf("fault %d (%s): %w", i, f.Name, err)
		}
	}
	return nil
}
