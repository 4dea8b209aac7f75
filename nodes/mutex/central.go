package mutex

import (
	"fmt"
	"slices"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Message kinds of the family. The same name means the same kind in every
// algorithm that uses it (nodes.RegisterKind).
var (
	kindRequest = nodes.RegisterKind("REQUEST", nodes.ElectionClass) // ask for the section (A: timestamp or holding flag)
	kindGrant   = nodes.RegisterKind("GRANT", nodes.ElectionClass)   // the coordinator lets one process in
	kindRelease = nodes.RegisterKind("RELEASE", nodes.ElectionClass) // the section is free again
	kindReply   = nodes.RegisterKind("REPLY", nodes.ElectionClass)   // a permission (ricart-agrawala) or a vote (maekawa)
)

// timerRecover is how long a newly elected coordinator collects the
// processes' states before granting (central with elect).
var timerRecover = nodes.RegisterTimer("CS_RECOVER", nodes.ElectionClass)

var centralParams = params(
	nodes.Param{Name: "elect", Default: "highest", Summary: "who coordinates: the highest process, or an election algorithm of complete topology (bully) that re-elects when the coordinator is suspected"},
	nodes.Param{Name: "recover", Default: "2D", Summary: "elect only: how long a new coordinator collects the processes' states before granting (duration)"},
)

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "central",
		Family:   "mutex",
		Summary:  "a coordinator grants the section from a queue: 2 messages per entry, 1 per exit",
		Topology: nodes.Complete,
		Params:   centralParams,
		New:      newCentral,
		Theory:   centralTheory,
		Mutex:    &nodes.Mutex{Entry: []nodes.Kind{kindRequest, kindGrant}, Exit: []nodes.Kind{kindRelease}},
	})
}

func newCentral(cfg nodes.Config) (func() nodes.Machine, error) {
	if err := nodes.CheckParams("central", cfg.Params, centralParams); err != nil {
		return nil, err
	}
	w, err := newWorkload(cfg)
	if err != nil {
		return nil, err
	}
	recoverFor, err := cfg.Duration("recover", "2D")
	if err != nil {
		return nil, err
	}
	var elect func() nodes.Machine
	if name, ok := cfg.Params["elect"]; ok && name != "highest" {
		a, variant, err := nodes.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("parameter elect: %w", err)
		}
		if a.IsMutex() || a.Topology != nodes.Complete || a.Quorum != nil || a.External != nil {
			return nil, fmt.Errorf("parameter elect: %s is not an election algorithm of complete topology that terminates (bully, multicast)", name)
		}
		if elect, err = a.New(nodes.Config{Variant: variant, Params: nodes.Params{}, N: cfg.N, T: cfg.T, D: cfg.D}); err != nil {
			return nil, fmt.Errorf("parameter elect: %s: %w", name, err)
		}
	}
	return func() nodes.Machine {
		c := &central{recoverFor: recoverFor, holder: -1}
		c.client = client{w: w, want: c.want, leave: c.leave}
		if elect != nil {
			c.elect = elect()
		}
		return c
	}, nil
}

// central is the central-server algorithm (Coulouris et al., §15.2): the
// coordinator holds a queue and grants the section to one process at a
// time. Its own requests it grants itself, without a message.
type central struct {
	client
	self       int // position among the peers (rank order)
	coord      int // the coordinator's position among the peers
	elect      nodes.Machine
	recoverFor time.Duration

	// The coordinator's state.
	holder     int   // who holds the section; -1 for nobody
	queue      []int // waiting processes, oldest first
	recovering bool  // a new coordinator is still collecting states
	suspected  []bool
}

// electEnv is the Env the election algorithm runs in: the same as the
// process's, except that a decision also tells the mutex who coordinates.
type electEnv struct {
	nodes.Env
	c *central
}

func (e electEnv) Decide(leader nodes.Rank) {
	e.Env.Decide(leader)
	e.c.learn(e.Env, leader)
}

// Start: everyone knows the coordinator, the highest process, as after an
// election; with elect, the election algorithm runs from here on and is
// called on only when the coordinator is suspected.
func (c *central) Start(env nodes.Env) {
	peers := env.Peers()
	c.self, c.coord = selfIndex(env), len(peers)-1
	c.order = c.self
	c.suspected = make([]bool, len(peers))
	env.Decide(peers[c.coord].Rank)
	if c.elect != nil {
		c.elect.Start(electEnv{env, c})
	}
}

func (c *central) want(env nodes.Env) {
	if c.self == c.coord {
		c.request(env, c.self, false)
		return
	}
	env.Send(env.Peers()[c.coord].ID, nodes.Message{Kind: kindRequest})
}

func (c *central) leave(env nodes.Env) {
	if c.self == c.coord {
		c.release(env, c.self)
		return
	}
	env.Send(env.Peers()[c.coord].ID, nodes.Message{Kind: kindRelease})
}

func (c *central) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	i := peerIndex(env, from)
	switch m.Kind {
	case kindRequest:
		c.request(env, i, m.A == 1)
	case kindRelease:
		c.release(env, i)
	case kindGrant:
		// Only the coordinator this process knows grants: a GRANT the old
		// one sent before it crashed, arriving after a new one was
		// elected, would let two processes in.
		if i == c.coord && c.phase == nodes.PhaseWanted {
			c.enter(env)
		}
	default:
		if c.elect != nil {
			c.elect.Receive(electEnv{env, c}, from, m)
		}
	}
}

// request queues process i at the coordinator; holding says i reports it
// is in the section (to a newly elected coordinator).
func (c *central) request(env nodes.Env, i int, holding bool) {
	if c.self != c.coord {
		return // a late request to a coordinator this process no longer is
	}
	switch {
	case holding:
		c.holder = i
	case c.holder == i || slices.Contains(c.queue, i):
	case c.holder < 0 && !c.recovering:
		c.grant(env, i)
	default:
		c.queue = append(c.queue, i)
	}
}

func (c *central) release(env nodes.Env, i int) {
	if c.self != c.coord || c.holder != i {
		return
	}
	c.holder = -1
	c.grantNext(env)
}

func (c *central) grantNext(env nodes.Env) {
	for len(c.queue) > 0 && c.holder < 0 {
		i := c.queue[0]
		c.queue = c.queue[1:]
		if !c.suspected[i] {
			c.grant(env, i)
		}
	}
}

func (c *central) grant(env nodes.Env, i int) {
	c.holder = i
	if i == c.self {
		c.enter(env)
		return
	}
	env.Send(env.Peers()[i].ID, nodes.Message{Kind: kindGrant})
}

func (c *central) Timeout(env nodes.Env, t nodes.TimerID) {
	switch {
	case c.workloadTimeout(env, t):
	case t == timerRecover:
		c.recovering = false
		if c.self == c.coord && c.holder < 0 {
			c.grantNext(env)
		}
	case c.elect != nil:
		c.elect.Timeout(electEnv{env, c}, t)
	}
}

// Suspect: the coordinator frees the section of a holder it suspects (its
// grant is lost with it) and forgets it in the queue; with elect, a
// suspected coordinator starts an election.
func (c *central) Suspect(env nodes.Env, p nodes.PeerID) {
	i := peerIndex(env, p)
	if i < 0 {
		return
	}
	c.suspected[i] = true
	if c.self == c.coord && c.holder == i {
		c.holder = -1
		c.grantNext(env)
	}
	if c.elect == nil {
		return
	}
	e := electEnv{env, c}
	c.elect.Suspect(e, p)
	if i == c.coord {
		c.elect.Initiate(e)
	}
}

// learn: the election decided leader. A new coordinator first collects
// every process's state for `recover` (long enough for its announcement
// to arrive and the answer to come back, 2D): a process in the section
// says so, and one waiting asks again, since the old queue died with the
// old coordinator.
func (c *central) learn(env nodes.Env, leader nodes.Rank) {
	i := slices.IndexFunc(env.Peers(), func(p nodes.Peer) bool { return p.Rank == leader })
	if i < 0 || i == c.coord {
		return
	}
	c.coord = i
	if i == c.self {
		c.holder, c.queue, c.recovering = -1, nil, true
		switch c.phase {
		case nodes.PhaseHeld:
			c.holder = c.self
		case nodes.PhaseWanted:
			c.queue = append(c.queue, c.self)
		}
		env.SetTimer(c.recoverFor, timerRecover)
		return
	}
	switch c.phase {
	case nodes.PhaseHeld:
		env.Send(env.Peers()[i].ID, nodes.Message{Kind: kindRequest, A: 1})
	case nodes.PhaseWanted:
		env.Send(env.Peers()[i].ID, nodes.Message{Kind: kindRequest})
	}
}
