package mutex

import (
	"github.com/electbench/electbench/nodes"
)

var kindToken = nodes.RegisterKind("TOKEN", nodes.ElectionClass) // the right to enter, passed to the successor

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "token-ring",
		Family:   "mutex",
		Summary:  "a token circulates on the ring, one message per hop whether anyone wants it or not",
		Topology: nodes.RingUni,
		Params:   params(),
		New:      newTokenRing,
		Mutex:    &nodes.Mutex{Entry: []nodes.Kind{kindToken}},
	})
}

func newTokenRing(cfg nodes.Config) (func() nodes.Machine, error) {
	if err := nodes.CheckParams("token-ring", cfg.Params, params()); err != nil {
		return nil, err
	}
	w, err := newWorkload(cfg)
	if err != nil {
		return nil, err
	}
	return func() nodes.Machine {
		r := &tokenRing{}
		r.client = client{w: w, want: r.want, leave: r.leave}
		return r
	}, nil
}

// tokenRing is the ring-based algorithm (Coulouris et al., §15.2): the
// token travels to the successor; a process that wants the section keeps
// it until it leaves. The token never rests, so a run lasts until its
// deadline and the ring's bandwidth is one message per T.
type tokenRing struct {
	client
	holding   bool
	suspected map[nodes.PeerID]bool
}

// Start: every process knows the ring order beyond its successor
// (ALGORITHMS.md, "Ring repair"); walking it once gives its rank order
// (for stagger) and tells the highest process that it makes the token,
// which it passes on at once.
func (r *tokenRing) Start(env nodes.Env) {
	self := env.Self()
	p := env.Peers()[0]
	highest := true
	for p.Rank != self {
		if p.Rank.Less(self) {
			r.order++
		} else {
			highest = false
		}
		next, ok := env.After(p.ID)
		if !ok {
			break
		}
		p = next
	}
	if highest {
		r.pass(env)
	}
}

func (r *tokenRing) want(env nodes.Env) {
	if r.holding { // a process left alone on its ring keeps the token
		r.enter(env)
	}
}

func (r *tokenRing) leave(env nodes.Env) {
	r.holding = false
	r.pass(env)
}

// pass sends the token to the first successor not suspected; with none
// left, this process keeps it.
func (r *tokenRing) pass(env nodes.Env) {
	next := env.Peers()[0]
	for r.suspected[next.ID] {
		n, ok := env.After(next.ID)
		if !ok || n.Rank == env.Self() {
			r.holding = true
			return
		}
		next = n
	}
	env.Send(next.ID, nodes.Message{Kind: kindToken})
}

func (r *tokenRing) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	if m.Kind != kindToken {
		return
	}
	if r.phase == nodes.PhaseWanted {
		r.holding = true
		r.enter(env)
		return
	}
	r.pass(env)
}

func (r *tokenRing) Timeout(env nodes.Env, t nodes.TimerID) { r.workloadTimeout(env, t) }

// Suspect: the ring closes over a suspected process. A crashed holder
// takes the token with it: the ring is then silent and every later
// request starves (the checker reports it), as the lecture says.
func (r *tokenRing) Suspect(_ nodes.Env, p nodes.PeerID) {
	if r.suspected == nil {
		r.suspected = map[nodes.PeerID]bool{}
	}
	r.suspected[p] = true
}
