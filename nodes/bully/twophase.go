package bully

import "github.com/electbench/electbench/nodes"

// The phases of the two-phase variant that are not nodes.PhaseNormal.
const (
	phaseElection = "Election"
	phaseWaiting  = "Waiting"
)

// twoPhase is one process of `bully`, variant two-phase (ALGORITHMS.md,
// "bully with announce: two-phase"), after the election procedure of
// Garcia-Molina's paper: the winner first halts every lower process and only
// announces once the live ones have acknowledged, so that no process leaves
// the election (returns to Normal) while another still follows an older
// coordinator. ELECTION, OK, T1 and T2 work as in classic.
type twoPhase struct {
	core
	halter  nodes.Rank // the winner that halted this process (state waiting)
	acked   bitset     // winner: lower processes that answered, by index
	pending int        // winner: lower processes, unsuspected, yet to answer
}

// Phase maps the states onto the paper's three: Normal when no election runs,
// Waiting when halted, Election otherwise (asking, awaiting a COORDINATOR,
// or halting the others as the winner).
func (p *twoPhase) Phase() string {
	switch p.state {
	case idle:
		return nodes.PhaseNormal
	case waiting:
		return phaseWaiting
	}
	return phaseElection
}

func (p *twoPhase) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindHalt:
		p.halted(env, from, m.Rank)
	case kindAck:
		p.ack(env, from, m.Rank)
	case kindCoordinator:
		// The paper accepts NewCoordinator(j) only from the j that halted
		// this process. Links are FIFO and every winner halts a process
		// before announcing to it, so a COORDINATOR from anyone else comes
		// from a winner that has been overtaken by a later HALT.
		if p.state == waiting && m.Rank == p.halter {
			p.coordinator(env, m.Rank)
		}
	default:
		p.core.Receive(env, from, m)
	}
}

func (p *twoPhase) Timeout(env nodes.Env, t nodes.TimerID) {
	if t == timerAckWait && p.state == halting {
		// "... (or a timeout passes)": the silent processes are treated as
		// down; they will learn the coordinator from a later ELECTION.
		p.finish(env)
		return
	}
	p.core.Timeout(env, t)
}

// Suspect also releases the winner from waiting for a process that has been
// found dead: "once every live lower process has answered".
func (p *twoPhase) Suspect(env nodes.Env, q nodes.PeerID) {
	i, newly := p.mark(q)
	if !newly {
		return
	}
	if p.state == halting && i < p.Self && !p.acked.has(i) {
		p.pending--
		if p.pending == 0 {
			p.finish(env)
			return
		}
	}
	p.suspectedLeader(env, i)
}

// halt is what a two-phase winner does instead of announcing: HALT to every
// lower process (suspected ones included), then wait for an ACK from each
// unsuspected one, for at most ack-wait.
func (p *twoPhase) halt(env nodes.Env) {
	p.state = halting
	env.CancelTimer(timerT1)
	env.CancelTimer(timerT2)
	p.acked.reset(p.Self)
	p.pending = 0
	m := nodes.Message{Kind: kindHalt, Rank: env.Self()}
	for i, q := range p.lower() {
		env.Send(q.ID, m)
		if !p.suspected(i) {
			p.pending++
		}
	}
	if p.pending == 0 {
		p.finish(env)
		return
	}
	env.SetTimer(p.ackWait, timerAckWait)
}

// ack counts one lower process's answer to this winner's HALT. An ACK
// carries its sender's rank, so the winner finds it without a scan; a
// duplicate, an ACK from a process suspected before it answered, or a late
// one after the round ended counts for nothing.
func (p *twoPhase) ack(env nodes.Env, from nodes.PeerID, r nodes.Rank) {
	if p.state != halting {
		return
	}
	i, ok := p.IndexOf(r, from)
	if !ok || i >= p.Self || p.acked.has(i) {
		return
	}
	p.acked.add(i)
	if p.suspected(i) {
		return
	}
	p.pending--
	if p.pending == 0 {
		p.finish(env)
	}
}

// finish ends the winner's halting round: COORDINATOR to every lower process
// and back to Normal.
func (p *twoPhase) finish(env nodes.Env) {
	env.CancelTimer(timerAckWait)
	p.announce(env)
}

// halted: "each moves to Waiting and answers ACK". A winner that is itself
// halting yields to the higher one. T2 guards the wait: if the winner falls
// silent, this process starts a new election.
func (p *twoPhase) halted(env nodes.Env, from nodes.PeerID, w nodes.Rank) {
	p.state = waiting
	p.halter = w
	env.CancelTimer(timerT1)
	env.CancelTimer(timerAckWait)
	env.SetTimer(p.t2, timerT2)
	env.Send(from, nodes.Message{Kind: kindAck, Rank: env.Self()})
}
