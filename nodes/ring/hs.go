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
		New:       constructor("hs", nodes.Batched[hs]),
		Theory:    hsTheory,
	})
}

// hs packs a PROBE's or REPLY's run number (ring repair, doc.go) and phase
// into Message.A as run<<phaseBits | phase. In run 0, every run of a
// fault-free election, A is the phase alone, as ALGORITHMS.md has it.
const (
	phaseBits = 6
	phaseMask = 1<<phaseBits - 1
	// maxPhase bounds the phase so that it never spills into the run
	// number. Fault-free phases stay below 32 (a phase-k probe reaching
	// 2^k ≥ N hops comes back to its sender), and reach saturates at 62.
	maxPhase = phaseMask
	// maxRun is the highest run number that fits beside a phase.
	maxRun = math.MaxInt64 >> phaseBits
)

// hs is one process of `hs` (ALGORITHMS.md, "hs — Hirschberg–Sinclair").
// PROBE carries Rank=j, A=k (phase), B=d (hops travelled); REPLY Rank=j, A=k;
// with the run number above the phase once ring repair has restarted a run.
type hs struct {
	noTimers
	// out is the successor side: the successor, or the first unsuspected
	// process after it, and the repair state, nil in fault-free runs.
	out successor
	// pred is the predecessor side: the predecessor, or the nearest
	// unsuspected process before it.
	pred    nodes.PeerID
	phase   uint8 // phase of this process's own probes in the current run, at most maxPhase
	replies uint8 // replies to this phase's probes received so far
	leader  bool  // this process's probe came round in the current run: it is the leader
}

func (p *hs) Start(env nodes.Env) {
	p.out.start(env) // RingBi: Peers() = [successor, predecessor]
	p.pred = env.Peers()[1].ID
	p.probe(env)
}

// Initiate does nothing: every process starts probing in Start
// (Algorithm.StartsAll).
func (p *hs) Initiate(nodes.Env) {}

// probe sends PROBE(self, phase, 1) both ways, in the current run.
func (p *hs) probe(env nodes.Env) {
	m := nodes.Message{Kind: kindProbe, Rank: env.Self(), A: p.out.epoch()<<phaseBits | int64(p.phase), B: 1}
	env.Send(p.out.next, m)
	env.Send(p.pred, m)
}

// across is the neighbour on the other side from the one a message came
// from: where a passing PROBE or REPLY goes next. With two processes both
// sides are the same neighbour.
//
// After ring repair a message may come from beyond a neighbour: from a
// process whose route skips crashed processes this one does not suspect
// yet. If it comes round from the predecessor side, it goes on to the
// successor, rightly; if from the successor side, it goes to the successor
// too, which is then a crashed process (the sender skipped it), so it is
// lost, and the suspicion that must follow starts a new run (doc.go, rule
// 4). It never turns back toward live processes it has passed.
func (p *hs) across(from nodes.PeerID) nodes.PeerID {
	if from == p.out.next {
		return p.pred
	}
	return p.out.next
}

func (p *hs) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	var run int64
	switch m.Kind {
	case kindProbe, kindReply:
		run = m.A >> phaseBits // negative for a negative A: older than any run, dropped below
	case kindElected:
		run = m.A
		if run > maxRun {
			return // no hs process numbers a run so high
		}
	default:
		return
	}
	order := p.out.orderRun(run)
	if order == staleRun {
		return // an abandoned run (doc.go, rule 3)
	}
	if p.out.rep != nil && p.cutOff(env, from, m) {
		p.restart(env)
		return
	}
	if order == newerRun {
		// A restarted run reaches this process: a fresh start, as Start is
		// in run 0, whatever it did in the abandoned one (doc.go, rule 3).
		// An ELECTED means the run has elected already; probes would only
		// be swallowed.
		p.phase, p.replies, p.leader = 0, 0, false
		if m.Kind != kindElected {
			p.probe(env)
		}
	}
	self := env.Self()
	switch m.Kind {
	case kindProbe:
		switch c := m.Rank.Cmp(&self); { // in place: copying a rank copied just before stalls
		case c == 0:
			// The probe went all the way round: no process is higher. The
			// copy sent the other way arrives later and is ignored.
			if !p.leader {
				p.leader = true
				env.Decide(self)
				env.Send(p.out.next, elected(self, run))
			}
		case c > 0 && m.B < reach(m.A&phaseMask):
			m.B++
			env.Send(p.across(from), m)
		case c > 0:
			env.Send(from, nodes.Message{Kind: kindReply, Rank: m.Rank, A: m.A})
		default:
			// j < self: swallow; j cannot win.
		}
	case kindReply:
		if m.Rank.Cmp(&self) != 0 { // == on ranks calls memequal
			env.Send(p.across(from), m)
			return
		}
		if m.A&phaseMask != int64(p.phase) {
			return // not a reply to a current probe: nothing the fault-free protocol sends
		}
		p.replies++
		if p.replies == 2 {
			// Both sides answered: nobody higher within 2^phase hops.
			if p.phase < maxPhase {
				p.phase++
			}
			p.replies = 0
			p.probe(env)
		}
	case kindElected:
		announce(env, p.out.next, &m)
	}
}

// cutOff reports whether ring repair must start a new run instead of
// handling m, a message of the current run or a newer one (doc.go, "Ring
// repair"):
//   - ELECTED(l) with l suspected: the announced leader is gone (rule 5);
//   - PROBE(j) with j suspected and above this process, or REPLY(j) with j
//     suspected: j's probing cannot finish, and the message is not passed
//     on (rule 2);
//   - a PROBE or REPLY from a suspected process (rule 7). Those two find
//     their way by the link they came over (across), and the sender's link
//     is gone from this process's routes: sent on to the successor, a
//     message that came from the successor side would turn back toward the
//     processes it has passed, and a probe could come home to its sender
//     without passing the rest of the ring.
func (p *hs) cutOff(env nodes.Env, from nodes.PeerID, m nodes.Message) bool {
	switch m.Kind {
	case kindElected:
		return p.out.suspects(&m.Rank)
	case kindProbe:
		if m.Rank.Compare(env.Self()) > 0 && p.out.suspects(&m.Rank) {
			return true
		}
	case kindReply:
		if m.Rank != env.Self() && p.out.suspects(&m.Rank) {
			return true
		}
	}
	return p.out.suspected(from)
}

// Suspect records the detector's verdict on q and closes the ring over the
// gap on each side q is on (ALGORITHMS.md, "Ring repair"); a change of
// either route starts a new run (doc.go, rule 4): whatever this process
// sent that way may have been lost with q.
func (p *hs) Suspect(env nodes.Env, q nodes.PeerID) {
	succ := p.out.suspect(env, q)
	pred := p.reroutePred(env)
	if succ || pred {
		p.restart(env)
	}
}

// reroutePred moves the predecessor route, if it is suspected, to the
// nearest unsuspected process before this one, and reports whether it
// moved. Env offers no step against the ring's direction, so it walks
// forward all the way round from the successor, keeping the last
// unsuspected process it passes: N steps, only when a suspicion hits the
// predecessor route. If every other process is suspected the route is this
// process itself, as the successor route then is: alone on the ring, its
// probes come straight back.
func (p *hs) reroutePred(env nodes.Env) bool {
	if !p.out.suspected(p.pred) {
		return false
	}
	self := env.Self()
	peer := env.Peers()[0]
	var last nodes.PeerID
	found := false
	for peer.Rank != self {
		if !p.out.suspected(peer.ID) {
			last, found = peer.ID, true
		}
		nx, ok := env.After(peer.ID)
		if !ok {
			return false // not a ring: nothing to walk
		}
		peer = nx
	}
	if !found {
		last = peer.ID // this process
	}
	p.pred = last
	return true
}

// restart starts a new run carrying this process, one above the highest it
// has seen (doc.go, "Ring repair"): its per-run state starts afresh and its
// phase-0 probes go both ways.
func (p *hs) restart(env nodes.Env) {
	p.out.restartUpTo(maxRun)
	p.phase, p.replies, p.leader = 0, 0, false
	p.probe(env)
}

// reach is how far a phase-k probe travels: 2^k hops.
func reach(k int64) int64 {
	if k < 0 || k >= 62 {
		return math.MaxInt64
	}
	return 1 << k
}
