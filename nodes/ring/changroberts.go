package ring

import "github.com/electbench/electbench/nodes"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "chang-roberts",
		Family:   "ring",
		Summary:  "Chang & Roberts 1979: a participation flag swallows redundant runs",
		Topology: nodes.RingUni,
		New:      constructor("chang-roberts", nodes.Batched[changRoberts]),
		Theory:   changRobertsTheory,
	})
}

// changRoberts is one process of `chang-roberts` (ALGORITHMS.md,
// "chang-roberts — ring with a participation flag").
// Its participation flag is out.participating, in the padding of its
// link.
type changRoberts struct {
	noTimers
	out successor
}

func (p *changRoberts) Start(env nodes.Env) { p.out.start(env) }

func (p *changRoberts) Initiate(env nodes.Env) {
	if p.out.restarted() {
		return // it already started the current run by a restart (doc.go, rule 6)
	}
	p.out.participating = true
	env.Send(p.out.next, election(env.Self(), p.out.epoch()))
}

func (p *changRoberts) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	if m.Kind != kindElection && m.Kind != kindElected {
		return
	}
	switch p.out.order(&m) {
	case staleRun:
		return
	case newerRun:
		// A restarted run: this process has not taken part in it yet,
		// whatever it did in the abandoned one.
		p.out.participating = false
	}
	if p.step(env, &m) {
		p.restart(env)
	}
}

// step applies the chang-roberts rules to a message of the current run.
// ring-initiator reuses it once it has accepted the message's initiator, so
// what it sends keeps m.Aux (zero in chang-roberts itself) and m.A, the run.
// It builds what it sends in *m. It reports whether ring repair must start a
// new run instead: the message carries a suspected process, which it
// neither forwards nor records.
func (p *changRoberts) step(env nodes.Env, m *nodes.Message) (restart bool) {
	if m.Kind == kindElected {
		if p.out.suspects(&m.Rank) {
			return true // the announced leader is gone (doc.go, rule 5)
		}
		p.out.participating = false
		p.out.settle()
		announce(env, p.out.next, m)
		return false
	}
	self := env.Self()
	switch c := m.Rank.Cmp(&self); { // in place: copying a rank copied just before stalls
	case c == 0:
		env.Decide(self)
		m.Kind = kindElected
		env.Send(p.out.next, *m)
	case c > 0 && p.out.suspects(&m.Rank):
		// r's process is gone and its run cannot finish: "stops forwarding
		// that message and starts a new run" (ALGORITHMS.md, "Ring repair").
		return true
	case c > 0:
		p.out.participating = true
		env.Send(p.out.next, *m)
	case !p.out.participating:
		p.out.participating = true
		m.Rank = self
		env.Send(p.out.next, *m)
	default:
		// r < self while participating: swallow. This process already sent
		// an ELECTION carrying itself or someone higher, which beats r.
	}
	return false
}

func (p *changRoberts) Suspect(env nodes.Env, q nodes.PeerID) {
	if p.out.suspect(env, q) {
		p.restart(env) // the route changed: the gap may hold a lost message (doc.go, rule 4)
	}
}

// restart starts a new run carrying this process (doc.go, "Ring repair").
func (p *changRoberts) restart(env nodes.Env) {
	p.out.participating = true
	env.Send(p.out.next, election(env.Self(), p.out.restart()))
}
