package ring

import "github.com/electbench/electbench/nodes"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:      "lcr",
		Family:    "ring",
		Summary:   "LeLann–Chang–Roberts: every process sends its id at start; smaller ids are swallowed",
		Topology:  nodes.RingUni,
		StartsAll: true,
		New:       constructor("lcr", func() nodes.Machine { return new(lcr) }),
		Theory:    lcrTheory,
	})
}

// lcr is one process of `lcr` (ALGORITHMS.md, "lcr — LeLann–Chang–Roberts").
// Every process initiates in Start; ELECTION carries the id j.
type lcr struct {
	noTimers
	out successor
}

func (p *lcr) Start(env nodes.Env) {
	p.out.start(env)
	env.Send(p.out.next, election(env.Self()))
}

// Initiate does nothing: every process already initiated in Start
// (Algorithm.StartsAll), and a lone extra run would be swallowed by the
// first higher process, whose own id has already gone by.
func (p *lcr) Initiate(nodes.Env) {}

func (p *lcr) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindElection:
		self := env.Self()
		switch c := m.Rank.Compare(self); {
		case c == 0:
			env.Decide(self)
			env.Send(p.out.next, elected(self)) // the termination message
		case c > 0 && p.out.suspects(m.Rank):
			// Ring repair: j's process is gone; start a new run instead.
			env.Send(p.out.next, election(self))
		case c > 0:
			env.Send(p.out.next, m)
		default:
			// j < self: swallow.
		}
	case kindElected:
		announce(env, p.out.next, m)
	}
}

func (p *lcr) Suspect(env nodes.Env, q nodes.PeerID) { p.out.suspect(env, q) }
