package ring

import (
	"math"

	"github.com/electbench/electbench/nodes"
)

func init() {
	nodes.Register(nodes.Algorithm{
		Name:      "hs",
		Family:    "ring",
		Summary:   "Hirschberg–Sinclair 1980: probes of doubling reach both ways on a bidirectional ring, O(N log N)",
		Topology:  nodes.RingBi,
		StartsAll: true,
		New:       constructor("hs", func() nodes.Machine { return new(hs) }),
		Theory:    hsTheory,
	})
}

// hs is one process of `hs` (ALGORITHMS.md, "hs — Hirschberg–Sinclair").
// PROBE carries Rank=j, A=k (phase), B=d (hops travelled); REPLY Rank=j, A=k.
type hs struct {
	noTimers
	succ, pred nodes.PeerID
	phase      int64 // phase of this process's own probes
	replies    uint8 // replies to this phase's probes received so far
	leader     bool  // this process's probe came round: it is the leader
}

func (p *hs) Start(env nodes.Env) {
	peers := env.Peers() // RingBi: [successor, predecessor]
	p.succ, p.pred = peers[0].ID, peers[1].ID
	p.probe(env)
}

// Initiate does nothing: every process starts probing in Start
// (Algorithm.StartsAll).
func (p *hs) Initiate(nodes.Env) {}

// probe sends PROBE(self, phase, 1) both ways.
func (p *hs) probe(env nodes.Env) {
	m := nodes.Message{Kind: kindProbe, Rank: env.Self(), A: p.phase, B: 1}
	env.Send(p.succ, m)
	env.Send(p.pred, m)
}

// across is the neighbour on the other side from the one a message came
// from: where a passing PROBE or REPLY goes next. With two processes both
// sides are the same neighbour.
func (p *hs) across(from nodes.PeerID) nodes.PeerID {
	if from == p.succ {
		return p.pred
	}
	return p.succ
}

func (p *hs) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindProbe:
		self := env.Self()
		switch c := m.Rank.Compare(self); {
		case c == 0:
			// The probe went all the way round: no process is higher. The
			// copy sent the other way arrives later and is ignored.
			if !p.leader {
				p.leader = true
				env.Decide(self)
				env.Send(p.succ, elected(self, 0))
			}
		case c > 0 && m.B < reach(m.A):
			m.B++
			env.Send(p.across(from), m)
		case c > 0:
			env.Send(from, nodes.Message{Kind: kindReply, Rank: m.Rank, A: m.A})
		default:
			// j < self: swallow; j cannot win.
		}
	case kindReply:
		if m.Rank != env.Self() {
			env.Send(p.across(from), m)
			return
		}
		if m.A != p.phase {
			return // not a reply to a current probe: nothing the fault-free protocol sends
		}
		p.replies++
		if p.replies == 2 {
			// Both sides answered: nobody higher within 2^phase hops.
			p.phase++
			p.replies = 0
			p.probe(env)
		}
	case kindElected:
		announce(env, p.succ, m)
	}
}

// Suspect does nothing: repairing a bidirectional ring needs a way to walk
// it against the direction of travel, which Env does not offer (doc.go).
func (p *hs) Suspect(nodes.Env, nodes.PeerID) {}

// reach is how far a phase-k probe travels: 2^k hops.
func reach(k int64) int64 {
	if k < 0 || k >= 62 {
		return math.MaxInt64
	}
	return 1 << k
}
