package ring

import "github.com/electbench/electbench/nodes"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "ring-initiator",
		Family:   "ring",
		Summary:  "chang-roberts whose messages carry the initiator; lower initiators' runs are discarded",
		Topology: nodes.RingUni,
		New:      constructor("ring-initiator", nodes.Batched[ringInitiator]),
		Theory:   ringInitiatorTheory,
	})
}

// ringInitiator is one process of `ring-initiator` (ALGORITHMS.md,
// "ring-initiator — suppression of lower initiators"): chang-roberts whose
// ELECTION and ELECTED carry the run's initiator in Message.Aux. Runs are
// ordered by run number first (ring repair, doc.go) and by initiator within
// one run number; a restarted run's initiator is the process that restarted
// it.
type ringInitiator struct {
	changRoberts
	initiator nodes.Rank // highest initiator seen in the current run; zero (below every rank) until then
}

// Initiate starts a run with this process as its initiator. A process that
// has already seen a higher initiator's run does nothing: its own run would
// be discarded by every process that has seen that higher run, and the
// higher run elects the leader anyway.
func (p *ringInitiator) Initiate(env nodes.Env) {
	self := env.Self()
	if p.out.restarted() || p.initiator.Compare(self) > 0 {
		return // already started by a restart (doc.go, rule 6), or outranked
	}
	p.initiator = self
	p.out.participating = true
	env.Send(p.out.next, nodes.Message{Kind: kindElection, Rank: self, Aux: self, A: p.out.epoch()})
}

func (p *ringInitiator) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	if m.Kind != kindElection && m.Kind != kindElected {
		return
	}
	switch p.out.order(&m) {
	case staleRun:
		return
	case newerRun:
		// A restarted run outranks every initiator of older runs.
		p.initiator = m.Aux
		p.out.participating = false
	default:
		switch m.Aux.Compare(p.initiator) {
		case -1:
			return // a lower initiator's run: discarded
		case 1:
			// A higher initiator's run reaches this process for the first
			// time: a new run starts here, so the participation flag of the
			// lower run no longer applies. Keeping it would be a bug: a
			// process that joined a lower run would swallow the higher
			// run's ELECTION (r < self while participating), while its own
			// lower-run ELECTION is later discarded by processes that have
			// seen the higher initiator — both runs die and nobody is
			// elected.
			p.initiator = m.Aux
			p.out.participating = false
		}
	}
	if p.step(env, &m) {
		p.restart(env)
	}
}

func (p *ringInitiator) Suspect(env nodes.Env, q nodes.PeerID) {
	if p.out.suspect(env, q) {
		p.restart(env) // the route changed: the gap may hold a lost message (doc.go, rule 4)
	}
}

// restart starts a new run carrying this process, with this process as its
// initiator (doc.go, "Ring repair").
func (p *ringInitiator) restart(env nodes.Env) {
	self := env.Self()
	p.initiator = self
	p.out.participating = true
	env.Send(p.out.next, nodes.Message{Kind: kindElection, Rank: self, Aux: self, A: p.out.restart()})
}
