package ring

import "github.com/electbench/electbench/nodes"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "ring-initiator",
		Family:   "ring",
		Summary:  "chang-roberts whose messages carry the initiator; lower initiators' runs are discarded",
		Topology: nodes.RingUni,
		New:      constructor("ring-initiator", func() nodes.Machine { return new(ringInitiator) }),
		Theory:   ringInitiatorTheory,
	})
}

// ringInitiator is one process of `ring-initiator` (ALGORITHMS.md,
// "ring-initiator — suppression of lower initiators"): chang-roberts whose
// ELECTION and ELECTED carry the run's initiator in Message.Aux. A run that
// ring repair restarts keeps its initiator, so it is not discarded as lower.
type ringInitiator struct {
	changRoberts
	initiator nodes.Rank // highest initiator seen; zero (below every rank) until then
}

// Initiate starts a run with this process as its initiator. A process that
// has already seen a higher initiator's run does nothing: its own run would
// be discarded by every process that has seen that higher run, and the
// higher run elects the leader anyway.
func (p *ringInitiator) Initiate(env nodes.Env) {
	self := env.Self()
	if p.initiator.Compare(self) > 0 {
		return
	}
	p.initiator = self
	p.participating = true
	env.Send(p.out.next, nodes.Message{Kind: kindElection, Rank: self, Aux: self})
}

func (p *ringInitiator) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	if m.Kind != kindElection && m.Kind != kindElected {
		return
	}
	switch m.Aux.Compare(p.initiator) {
	case -1:
		return // a lower initiator's run: discarded
	case 1:
		// A higher initiator's run reaches this process for the first time:
		// a new run starts here, so the participation flag of the lower run
		// no longer applies. Keeping it would be a bug: a process that joined
		// a lower run would swallow the higher run's ELECTION (r < self while
		// participating), while its own lower-run ELECTION is later discarded
		// by processes that have seen the higher initiator — both runs die
		// and nobody is elected.
		p.initiator = m.Aux
		p.participating = false
	}
	if m.Kind == kindElection {
		p.election(env, &m)
		return
	}
	p.participating = false
	announce(env, p.out.next, m)
}
