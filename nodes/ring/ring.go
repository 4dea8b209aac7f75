package ring

import "github.com/electbench/electbench/nodes"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "ring",
		Family:   "ring",
		Summary:  "basic ring election: every run goes round, no participation flag",
		Topology: nodes.RingUni,
		New:      constructor("ring", func() nodes.Machine { return new(basic) }),
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

func (p *basic) Initiate(env nodes.Env) { env.Send(p.out.next, election(env.Self())) }

func (p *basic) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindElection:
		self := env.Self()
		switch c := m.Rank.Compare(self); {
		case c == 0:
			env.Decide(self)
			env.Send(p.out.next, elected(self))
		case c > 0 && !p.out.suspects(m.Rank):
			env.Send(p.out.next, m)
		default:
			// r < self, or r's process is suspected (ring repair): a run
			// carrying this process instead. Always, since there is no flag.
			env.Send(p.out.next, election(self))
		}
	case kindElected:
		announce(env, p.out.next, m)
	}
}

func (p *basic) Suspect(env nodes.Env, q nodes.PeerID) { p.out.suspect(env, q) }
