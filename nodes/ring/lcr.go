package ring

import "github.com/electbench/electbench/nodes"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:      "lcr",
		Family:    "ring",
		Summary:   "LeLann–Chang–Roberts: every process sends its id at start; smaller ids are swallowed",
		Topology:  nodes.RingUni,
		StartsAll: true,
		New:       constructor("lcr", nodes.Batched[lcr]),
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
	env.Send(p.out.next, election(env.Self(), 0))
}

// Initiate does nothing: every process already initiated in Start
// (Algorithm.StartsAll), and a lone extra run would be swallowed by the
// first higher process, whose own id has already gone by.
func (p *lcr) Initiate(nodes.Env) {}

func (p *lcr) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	if m.Kind != kindElection && m.Kind != kindElected {
		return
	}
	switch p.out.order(&m) {
	case staleRun:
		return
	case newerRun:
		// A restarted run is a fresh start for this process: it has not
		// sent its id in it yet (doc.go, "Ring repair").
		p.out.rep.idle = true
	}
	if m.Kind == kindElected {
		if p.out.suspects(&m.Rank) {
			p.restart(env) // the announced leader is gone (doc.go, rule 5)
			return
		}
		p.out.settle()
		announce(env, p.out.next, &m)
		return
	}
	self := env.Self()
	switch c := m.Rank.Cmp(&self); { // in place: copying a rank copied just before stalls
	case c == 0:
		env.Decide(self)
		env.Send(p.out.next, elected(self, m.A)) // the termination message
	case c > 0 && p.out.suspects(&m.Rank):
		// j's process is gone: "stops forwarding that message and starts a
		// new run" (ALGORITHMS.md, "Ring repair").
		p.restart(env)
	case c > 0:
		p.joined()
		env.Send(p.out.next, m)
	case p.out.rep != nil && p.out.rep.idle:
		// j < self, the first message of a restarted run to reach this
		// process: what Start does in run 0, send its own id.
		p.joined()
		env.Send(p.out.next, election(self, m.A))
	default:
		// j < self: swallow.
	}
}

// joined records that this process has sent its id, or a higher one, in the
// current run; from then on it swallows smaller ids as lcr does.
func (p *lcr) joined() {
	if p.out.rep != nil {
		p.out.rep.idle = false
	}
}

func (p *lcr) Suspect(env nodes.Env, q nodes.PeerID) {
	if p.out.suspect(env, q) {
		p.restart(env) // the route changed: the gap may hold a lost message (doc.go, rule 4)
	}
}

// restart starts a new run carrying this process (doc.go, "Ring repair").
func (p *lcr) restart(env nodes.Env) {
	run := p.out.restart()
	p.out.rep.idle = false
	env.Send(p.out.next, election(env.Self(), run))
}
