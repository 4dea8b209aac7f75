package bully

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
)

// bullyParams' defaults are in units of the delay bound D, not of the mean
// T: Garcia-Molina's bully assumes a known bound on message delay, and its
// timeouts are that bound (ALGORITHMS.md, bully). T1 = 2D outlasts the
// longest round trip, so no process declares itself while a higher one is
// alive; with T1 = 2T under jittered latency lower processes win early and
// every late ELECTION makes the highest re-announce to everyone. Under
// constant latency D = T, and every reference figure is unchanged.
var bullyParams = []nodes.Param{
	{Name: "t1", Default: "2D", Summary: "how long an election waits for an OK before the process declares itself (duration; D is the latency's delay bound)"},
	{Name: "t2", Default: "5D", Summary: "how long a process that got an OK waits for COORDINATOR before a new election (duration)"},
	{Name: "ack-wait", Default: "2D", Summary: "two-phase only: how long the winner waits for ACKs before announcing (duration)"},
	{Name: "settle", Default: "2D", Summary: "how long after a COORDINATOR an ELECTION starts no new election (duration; 0 is the textbook rule, which cascades under jitter)"},
}

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "bully",
		Family:   "bully",
		Summary:  "Garcia-Molina 1982 as taught: ask every higher process, the highest alive bullies the rest",
		Topology: nodes.Complete,
		// T1 = 2D outlasts a round trip only if D bounds every delay.
		BoundedDelay: true,
		Candidacy:    kindElection,
		Variants: []nodes.Variant{
			{Name: "classic", Summary: "the winner announces COORDINATOR at once"},
			{Name: "two-phase", Summary: "the winner halts every lower process and collects ACKs before announcing (Normal, Election, Waiting)"},
		},
		Params: bullyParams,
		New:    newBully,
		Theory: bullyTheory,
	})
}

// timing is what every process of one bully run shares.
type timing struct {
	t1, t2, ackWait time.Duration
	settle          time.Duration // core.settling; 0 never settles
}

func newBully(cfg nodes.Config) (func() nodes.Machine, error) {
	variant, err := nodes.CheckVariant("bully", cfg.Variant, "classic", "two-phase")
	if err != nil {
		return nil, err
	}
	if err := nodes.CheckParams("bully", cfg.Params, bullyParams); err != nil {
		return nil, err
	}
	tm := new(timing)
	for _, p := range []struct {
		name string
		d    *time.Duration
	}{{"t1", &tm.t1}, {"t2", &tm.t2}, {"ack-wait", &tm.ackWait}} {
		if *p.d, err = duration(cfg, bullyParams, p.name); err != nil {
			return nil, err
		}
	}
	if tm.settle, err = cfg.Duration("settle", "2D"); err != nil {
		return nil, err
	}
	if tm.settle < 0 {
		return nil, fmt.Errorf("parameter settle: must not be negative, got %v", tm.settle)
	}
	if variant == "two-phase" {
		return func() nodes.Machine {
			p := &twoPhase{}
			p.core = core{timing: tm, won: p.halt}
			return p
		}, nil
	}
	// A run's classic machines are allocated together, the first N at once
	// and a restart's one at a time: one allocation of a small trial, not
	// two a process (each machine and the closure its won was). A classic
	// winner announces, which core does when won is nil.
	var batch []classic
	size := max(cfg.N, 1)
	return func() nodes.Machine {
		if len(batch) == 0 {
			batch, size = make([]classic, size), 1
		}
		p := &batch[0]
		batch = batch[1:]
		p.timing = tm
		return p
	}, nil
}

// classic is one process of `bully`, variant classic: the winner announces at
// once. Every rule is core's.
type classic struct{ core }
