package mutex

import (
	"github.com/electbench/electbench/nodes"
)

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "ricart-agrawala",
		Family:   "mutex",
		Summary:  "Ricart & Agrawala 1981: multicast a timestamped request, enter after N−1 replies",
		Topology: nodes.Complete,
		Params:   params(),
		New:      newRicart,
		Theory:   ricartTheory,
		Mutex:    &nodes.Mutex{Entry: []nodes.Kind{kindRequest, kindReply}, Ordered: true},
	})
}

func newRicart(cfg nodes.Config) (func() nodes.Machine, error) {
	if err := nodes.CheckParams("ricart-agrawala", cfg.Params, params()); err != nil {
		return nil, err
	}
	w, err := newWorkload(cfg)
	if err != nil {
		return nil, err
	}
	return func() nodes.Machine {
		r := &ricart{}
		r.client = client{w: w, want: r.want, leave: r.leave}
		return r
	}, nil
}

// ricart is Ricart & Agrawala's algorithm (1981). REQUEST carries the
// requester's Lamport timestamp in A; REPLY carries nothing.
type ricart struct {
	client
	self     int
	clock    int64 // Lamport clock
	ts       int64 // timestamp of the pending request
	replied  []bool
	suspect  []bool // processes the detector suspects: never waited for
	missing  int    // replies still awaited
	deferred []int  // requests answered on leaving
}

func (r *ricart) Start(env nodes.Env) {
	r.self = selfIndex(env)
	r.order = r.self
	r.replied = make([]bool, len(env.Peers()))
	r.suspect = make([]bool, len(env.Peers()))
}

// want: "multicast a request with a Lamport timestamp".
func (r *ricart) want(env nodes.Env) {
	r.clock++
	r.ts = r.clock
	r.missing = 0
	for i, p := range env.Peers() {
		r.replied[i] = i == r.self || r.suspect[i]
		if !r.replied[i] {
			r.missing++
			env.Send(p.ID, nodes.Message{Kind: kindRequest, A: r.ts})
		}
	}
	if r.missing == 0 {
		r.enter(env)
	}
}

// leave: reply to every request deferred while this process held or
// wanted the section with an earlier (timestamp, id).
func (r *ricart) leave(env nodes.Env) {
	for _, i := range r.deferred {
		env.Send(env.Peers()[i].ID, nodes.Message{Kind: kindReply})
	}
	r.deferred = r.deferred[:0]
}

func (r *ricart) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	i := peerIndex(env, from)
	switch m.Kind {
	case kindRequest:
		r.clock = max(r.clock, m.A) + 1
		// "Reply unless holding, or wanting with an earlier (timestamp,
		// id)": ranks break ties between equal timestamps.
		mine := r.phase == nodes.PhaseHeld ||
			r.phase == nodes.PhaseWanted && (r.ts < m.A || r.ts == m.A && r.self < i)
		if mine {
			r.deferred = append(r.deferred, i)
			return
		}
		env.Send(from, nodes.Message{Kind: kindReply})
	case kindReply:
		r.granted(env, i)
	}
}

// granted counts i's permission once; the last one lets this process in.
func (r *ricart) granted(env nodes.Env, i int) {
	if r.phase != nodes.PhaseWanted || r.replied[i] {
		return
	}
	r.replied[i] = true
	if r.missing--; r.missing == 0 {
		r.enter(env)
	}
}

func (r *ricart) Timeout(env nodes.Env, t nodes.TimerID) { r.workloadTimeout(env, t) }

// Suspect: a crashed process will never reply; under a perfect detector
// it will never enter either, so its permission is taken as given. An
// inaccurate detector breaks safety here, and the checker says so.
func (r *ricart) Suspect(env nodes.Env, p nodes.PeerID) {
	if i := peerIndex(env, p); i >= 0 {
		r.suspect[i] = true
		r.granted(env, i)
	}
}
