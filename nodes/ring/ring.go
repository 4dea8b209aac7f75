package ring

import "github.com/electbench/electbench/nodes"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "ring",
		Family:   "ring",
		Summary:  "basic ring election: every run goes round, no participation flag",
		Topology: nodes.RingUni,
		New:      constructor("ring", nodes.Batched[basic]),
		Theory:   basicTheory,
	})
}

// basic is one process of `ring` (ALGORITHMS.md, "ring — basic ring
// election"). With no participation flag every incoming ELECTION produces
// exactly one outgoing message, so every run completes on its own.
type basic struct {
	noTimers
	out successor
}

func (p *basic) Start(env nodes.Env) { p.out.start(env) }

func (p *basic) Initiate(env nodes.Env) {
	if p.out.restarted() {
		return // it already started the current run by a restart (doc.go, rule 6)
	}
	env.Send(p.out.next, election(env.Self(), p.out.epoch()))
}

func (p *basic) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	if m.Kind != kindElection && m.Kind != kindElected {
		return
	}
	// With no flag there is no per-run state to reset in a newer run; only
	// an older one is dropped.
	if p.out.order(&m) == staleRun {
		return
	}
	self := env.Self()
	if m.Kind == kindElected {
		if p.out.suspects(&m.Rank) {
			p.restart(env) // the announced leader is gone (doc.go, rule 5)
			return
		}
		p.out.settle()
		announce(env, p.out.next, &m)
		return
	}
	switch c := m.Rank.Cmp(&self); { // in place: copying a rank copied just before stalls
	case c == 0:
		env.Decide(self)
		env.Send(p.out.next, elected(self, m.A))
	case c > 0 && p.out.suspects(&m.Rank):
		// r's process is gone and its run cannot finish: "stops forwarding
		// that message and starts a new run" (ALGORITHMS.md, "Ring repair").
		p.restart(env)
	case c > 0:
		env.Send(p.out.next, m)
	default:
		// r < self: a run carrying this process instead. Always, since
		// there is no flag.
		env.Send(p.out.next, election(self, m.A))
	}
}

func (p *basic) Suspect(env nodes.Env, q nodes.PeerID) {
	if p.out.suspect(env, q) {
		p.restart(env) // the route changed: the gap may hold a lost message (doc.go, rule 4)
	}
}

// restart starts a new run carrying this process (doc.go, "Ring repair").
func (p *basic) restart(env nodes.Env) {
	env.Send(p.out.next, election(env.Self(), p.out.restart()))
}
