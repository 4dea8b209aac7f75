package ring

import "github.com/electbench/electbench/nodes"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "chang-roberts",
		Family:   "ring",
		Summary:  "Chang & Roberts 1979: a participation flag swallows redundant runs",
		Topology: nodes.RingUni,
		New:      constructor("chang-roberts", func() nodes.Machine { return new(changRoberts) }),
		Theory:   changRobertsTheory,
	})
}

// changRoberts is one process of `chang-roberts` (ALGORITHMS.md,
// "chang-roberts — ring with a participation flag").
type changRoberts struct {
	noTimers
	out           successor
	participating bool // has sent or forwarded an ELECTION since the last ELECTED
}

func (p *changRoberts) Start(env nodes.Env) { p.out.start(env) }

func (p *changRoberts) Initiate(env nodes.Env) {
	p.participating = true
	env.Send(p.out.next, election(env.Self()))
}

func (p *changRoberts) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindElection:
		p.election(env, &m)
	case kindElected:
		p.participating = false
		announce(env, p.out.next, m)
	}
}

// election applies the chang-roberts rules to ELECTION(r). ring-initiator
// reuses it once it has accepted the message's initiator, so replies keep
// m.Aux (zero in chang-roberts itself). It builds what it sends in *m.
func (p *changRoberts) election(env nodes.Env, m *nodes.Message) {
	self := env.Self()
	switch c := m.Rank.Compare(self); {
	case c == 0:
		env.Decide(self)
		m.Kind = kindElected
		env.Send(p.out.next, *m)
	case c > 0:
		p.participating = true
		if p.out.suspects(m.Rank) {
			// Ring repair: r's process is gone and its run cannot finish;
			// stop it here and start a new one carrying this process.
			m.Rank = self
		}
		env.Send(p.out.next, *m)
	case !p.participating:
		p.participating = true
		m.Rank = self
		env.Send(p.out.next, *m)
	default:
		// r < self while participating: swallow. This process already sent
		// an ELECTION carrying itself or someone higher, which beats r.
	}
}

func (p *changRoberts) Suspect(env nodes.Env, q nodes.PeerID) { p.out.suspect(env, q) }
