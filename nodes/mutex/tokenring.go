package mutex

import (
	"github.com/electbench/electbench/nodes"
)

var (
	kindToken      = nodes.RegisterKind("TOKEN", nodes.ElectionClass)      // the right to enter, passed to the successor (A: its hop, regenerate only)
	kindRegenerate = nodes.RegisterKind("REGENERATE", nodes.ElectionClass) // regenerate: the token may have died at a crashed process (A: the hop it was sent there with)
)

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "token-ring",
		Family:   "mutex",
		Summary:  "a token circulates on the ring, one message per hop whether anyone wants it or not",
		Topology: nodes.RingUni,
		Variants: []nodes.Variant{
			{Name: "default", Summary: "as taught: a crashed holder takes the token with it"},
			{Name: "regenerate", Summary: "the token counts its hops; the process that passed it to a crashed one has the next one regenerate it unless it saw it pass"},
		},
		Params:   params(),
		New:      newTokenRing,
		Mutex:    &nodes.Mutex{Entry: []nodes.Kind{kindToken, kindRegenerate}},
		Restless: true, // the token never rests
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
	regenerate := cfg.Variant == "regenerate"
	return func() nodes.Machine {
		r := &tokenRing{regenerate: regenerate}
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

	// regenerate: the hop the token arrived with, the highest hop seen,
	// and to whom and with which hop this process last passed it.
	regenerate bool
	hop, seen  int64
	lastTo     nodes.PeerID
	lastHop    int64
	passed     bool
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
	m := nodes.Message{Kind: kindToken}
	if r.regenerate {
		m.A = r.hop + 1
		r.lastTo, r.lastHop, r.passed = next.ID, m.A, true
	}
	env.Send(next.ID, m)
}

func (r *tokenRing) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindToken:
		r.seen = max(r.seen, m.A)
		r.hop = m.A
	case kindRegenerate:
		// The token was sent with hop A to the crashed process before
		// this one. Had it passed the token on, this process would have
		// seen hop A+1 or later: every message the crashed process sent
		// has arrived by the time its predecessor suspected it (the
		// detector waits at least the delay bound). Not seen: it died
		// there, and this process takes it up as if passed on.
		if r.seen > m.A {
			return
		}
		r.seen, r.hop = m.A+1, m.A+1
	default:
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
// request starves (the checker reports it), as the lecture says. In the
// regenerate variant, the process that last passed the token to the
// suspected one asks the next live process to regenerate it (Receive).
func (r *tokenRing) Suspect(env nodes.Env, p nodes.PeerID) {
	if r.suspected == nil {
		r.suspected = map[nodes.PeerID]bool{}
	}
	r.suspected[p] = true
	if !r.regenerate || !r.passed || r.lastTo != p {
		return
	}
	next, ok := env.After(p)
	for ok && r.suspected[next.ID] && next.Rank != env.Self() {
		next, ok = env.After(next.ID)
	}
	if !ok {
		return
	}
	r.passed = false
	if next.Rank == env.Self() { // the rest of the ring is gone: keep it
		r.Receive(env, p, nodes.Message{Kind: kindRegenerate, A: r.lastHop})
		return
	}
	env.Send(next.ID, nodes.Message{Kind: kindRegenerate, A: r.lastHop})
}
