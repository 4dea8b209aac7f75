package bully

import (
	"time"

	"github.com/electbench/electbench/nodes"
)

// multicastParams' timeout is a round trip at the delay bound D, for the
// reason bullyParams' T1 is (bully.go).
var multicastParams = []nodes.Param{
	{Name: "timeout", Default: "2D", Summary: "how long a candidate waits for a DISAGREE before it declares itself (duration; D is the latency's delay bound)"},
}

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "multicast",
		Family:   "bully",
		Summary:  "ask everyone: elected once all agree or nobody disagrees in time, without the bully's shortcut",
		Topology: nodes.Complete,
		// T1 = 2D outlasts a round trip only if D bounds every delay.
		BoundedDelay: true,
		Candidacy:    kindElection,
		Variants: []nodes.Variant{
			{Name: "agree", Summary: "lower processes answer AGREE; AGREE from all elects at once"},
			{Name: "no-agree", Summary: "only DISAGREE is sent; elected when the timer expires without one"},
		},
		Params: multicastParams,
		New:    newMulticast,
		Theory: multicastTheory,
	})
}

func newMulticast(cfg nodes.Config) (func() nodes.Machine, error) {
	variant, err := nodes.CheckVariant("multicast", cfg.Variant, "agree", "no-agree")
	if err != nil {
		return nil, err
	}
	if err := nodes.CheckParams("multicast", cfg.Params, multicastParams); err != nil {
		return nil, err
	}
	timeout, err := duration(cfg, multicastParams, "timeout")
	if err != nil {
		return nil, err
	}
	agree := variant == "agree"
	return func() nodes.Machine { return &multicast{timeout: timeout, agree: agree} }, nil
}

// mstate is where a multicast process stands in an election.
type mstate uint8

const (
	mIdle     mstate = iota // no election running: the coordinator is known
	mElecting               // ELECTION(self) sent to everyone, timer armed
	mGaveUp                 // a DISAGREE came: someone higher will announce
)

// multicast is one process of `multicast` (ALGORITHMS.md, "multicast — the
// election without the bully's shortcut"). It starts an election on the same
// triggers as bully: the workload, or a suspicion of the coordinator.
type multicast struct {
	group
	timeout time.Duration
	agree   bool // variant agree: answer AGREE, and win on AGREE from all
	state   mstate
	agrees  int // AGREEs received in the current election
}

func (p *multicast) Start(env nodes.Env) { p.start(env) }

// Initiate starts an election unless one runs. A process that gave up is
// still in the election: it waits for the COORDINATOR of whoever disagreed.
func (p *multicast) Initiate(env nodes.Env) {
	if p.state == mIdle {
		p.elect(env)
	}
}

func (p *multicast) Suspect(env nodes.Env, q nodes.PeerID) {
	if i, newly := p.mark(q); newly && p.Peers[i].Rank == p.leader && p.state == mIdle {
		p.elect(env)
	}
}

// elect: "send ELECTION(self) to every process; arm a timer". Every process
// means every other one, suspected ones included.
func (p *multicast) elect(env nodes.Env) {
	p.state = mElecting
	p.agrees = 0
	p.sendOthers(env, nodes.Message{Kind: kindElection, Rank: env.Self()})
	env.SetTimer(p.timeout, timerElection)
}

func (p *multicast) sendOthers(env nodes.Env, m nodes.Message) {
	below, above := p.others()
	for _, q := range below {
		env.Send(q.ID, m)
	}
	for _, q := range above {
		env.Send(q.ID, m)
	}
}

func (p *multicast) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindElection:
		p.election(env, from, m.Rank)
	case kindAgree:
		// "AGREE from all": every other process, since a suspicion may be
		// wrong; the timer covers the ones that are really gone.
		if p.state == mElecting {
			p.agrees++
			if p.agrees == len(p.Peers)-1 {
				p.win(env)
			}
		}
	case kindDisagree:
		// "DISAGREE received → give up."
		if p.state == mElecting {
			p.state = mGaveUp
			env.CancelTimer(timerElection)
		}
	case kindCoordinator:
		p.state = mIdle
		p.leader = m.Rank
		env.CancelTimer(timerElection)
		env.Decide(m.Rank)
	}
}

// election answers ELECTION(j): "j > self → AGREE to p; j < self → DISAGREE
// to p and start an election unless one runs". Variant no-agree stays silent
// when j > self.
func (p *multicast) election(env nodes.Env, from nodes.PeerID, j nodes.Rank) {
	switch j.Compare(env.Self()) {
	case 1:
		if p.agree {
			env.Send(from, nodes.Message{Kind: kindAgree})
		}
	case -1:
		env.Send(from, nodes.Message{Kind: kindDisagree})
		if p.state == mIdle {
			p.elect(env)
		}
	}
}

// Timeout: "the timer expires with no DISAGREE → leader". A DISAGREE cancels
// the timer, so an expiry while electing means none came.
func (p *multicast) Timeout(env nodes.Env, t nodes.TimerID) {
	if t == timerElection && p.state == mElecting {
		p.win(env)
	}
}

// win: "leader, send COORDINATOR(self) to all".
func (p *multicast) win(env nodes.Env) {
	self := env.Self()
	p.state = mIdle
	p.leader = self
	env.CancelTimer(timerElection)
	env.Decide(self)
	p.sendOthers(env, coordinator(self))
}
