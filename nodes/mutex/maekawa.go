package mutex

import (
	"math"
	"slices"

	"github.com/electbench/electbench/nodes"
)

var (
	kindInquire    = nodes.RegisterKind("INQUIRE", nodes.ElectionClass)    // a voter asks for its vote back (inquire variant)
	kindRelinquish = nodes.RegisterKind("RELINQUISH", nodes.ElectionClass) // a candidate gives a vote back (inquire variant)
)

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "maekawa",
		Family:   "mutex",
		Summary:  "Maekawa 1985: ask a voting set of about 2√N, one vote per process; 2K messages per entry, K per exit",
		Topology: nodes.Complete,
		Variants: []nodes.Variant{
			{Name: "basic", Summary: "as taught: a voter queues requests first come, first served (it can deadlock)"},
			{Name: "inquire", Summary: "requests ordered by Lamport timestamp; a voter asks back (INQUIRE) a vote a better request needs, and a candidate not in the section gives it back (RELINQUISH): no deadlock"},
		},
		Params: params(),
		New:    newMaekawa,
		Theory: maekawaTheory,
		Mutex: &nodes.Mutex{
			Entry:     []nodes.Kind{kindRequest, kindReply, kindInquire, kindRelinquish},
			Exit:      []nodes.Kind{kindRelease},
			VotingSet: func(cfg nodes.Config) int { return votingSetSize(cfg.N) },
		},
	})
}

// votingOffsets is the cyclic grid construction of the voting sets (ALGORITHMS.md,
// maekawa): with k = ⌈√N⌉, process i (in rank order) asks the processes
// i+s mod N for s in S = {0, 1, …, k−1} ∪ {0, k, 2k, …, (k−1)k}, a row and a
// column of a k×k grid laid cyclically over the processes. Any two sets
// meet: for any d, some b·k − a ≡ d (mod N) with 0 ≤ a, b < k, because
// b·k − a takes every value from −(k−1) to k² − k and k² ≥ N; so i's column
// meets j's row. Every set is a translate of S: all have the same size and
// every process sits in the same number of sets, Maekawa's equal effort and
// equal responsibility.
func votingOffsets(n int) []int {
	k := int(math.Ceil(math.Sqrt(float64(n))))
	for k*k < n { // guard against rounding
		k++
	}
	var s []int
	for a := range k {
		s = append(s, a%n, (a*k)%n)
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// votingSetSize is K: the processes a process asks besides itself.
func votingSetSize(n int) int { return len(votingOffsets(n)) - 1 }

func newMaekawa(cfg nodes.Config) (func() nodes.Machine, error) {
	if err := nodes.CheckParams("maekawa", cfg.Params, params()); err != nil {
		return nil, err
	}
	w, err := newWorkload(cfg)
	if err != nil {
		return nil, err
	}
	offsets := votingOffsets(cfg.N)
	inquire := cfg.Variant == "inquire"
	return func() nodes.Machine {
		m := &maekawa{offsets: offsets, inquire: inquire, votedFor: -1}
		m.client = client{w: w, want: m.want, leave: m.leave}
		return m
	}, nil
}

// ask is a request as a voter sees it: who, and its timestamp.
type ask struct {
	who int
	ts  int64
}

// before orders requests by (timestamp, rank): the inquire variant's
// priority.
func (a ask) before(b ask) bool { return a.ts < b.ts || a.ts == b.ts && a.who < b.who }

// maekawa is Maekawa's algorithm (1985) as Coulouris et al. teach it,
// with the inquire/relinquish fix as a variant. A process votes for
// itself without a message: K is the other members of its set.
type maekawa struct {
	client
	offsets []int
	inquire bool
	self    int
	set     []int // positions (rank order) of the voting set, itself included

	// As a candidate.
	clock int64
	ts    int64  // the pending request's timestamp (inquire)
	votes []bool // by position: whose vote this process holds now

	// As a voter.
	votedFor  int   // -1: this process's vote is free
	votedTS   int64 // the timestamp of the request it voted for
	inquired  bool  // an INQUIRE for the current vote is out
	queue     []ask
	suspected []bool
}

func (m *maekawa) Start(env nodes.Env) {
	n := len(env.Peers())
	m.self = selfIndex(env)
	m.order = m.self
	for _, s := range m.offsets {
		m.set = append(m.set, (m.self+s)%n)
	}
	m.votes = make([]bool, n)
	m.suspected = make([]bool, n)
}

// send delivers m to process i: itself without a message.
func (m *maekawa) send(env nodes.Env, i int, msg nodes.Message) {
	if i == m.self {
		m.handle(env, i, msg)
		return
	}
	env.Send(env.Peers()[i].ID, msg)
}

// want: "multicast request to all processes in V_i".
func (m *maekawa) want(env nodes.Env) {
	var ts int64
	if m.inquire {
		m.clock++
		m.ts, ts = m.clock, m.clock
	}
	clear(m.votes)
	for _, i := range m.set {
		m.send(env, i, nodes.Message{Kind: kindRequest, A: ts})
	}
}

// leave: "multicast release to all processes in V_i".
func (m *maekawa) leave(env nodes.Env) {
	clear(m.votes)
	for _, i := range m.set {
		m.send(env, i, nodes.Message{Kind: kindRelease})
	}
}

func (m *maekawa) Receive(env nodes.Env, from nodes.PeerID, msg nodes.Message) {
	m.handle(env, peerIndex(env, from), msg)
}

func (m *maekawa) handle(env nodes.Env, from int, msg nodes.Message) {
	if m.inquire && msg.A > 0 {
		m.clock = max(m.clock, msg.A) + 1
	}
	switch msg.Kind {
	case kindRequest:
		m.request(env, ask{who: from, ts: msg.A})
	case kindRelease:
		if m.votedFor == from {
			m.voteNext(env)
		}
	case kindReply:
		m.voted(env, from)
	case kindInquire:
		// A candidate not in the section gives back a vote a better
		// request needs; a stale INQUIRE (about an earlier request, or
		// a vote already returned) changes nothing.
		if m.phase == nodes.PhaseWanted && msg.A == m.ts && m.votes[from] {
			m.votes[from] = false
			m.send(env, from, nodes.Message{Kind: kindRelinquish, A: m.ts})
		}
	case kindRelinquish:
		if m.votedFor == from && m.votedTS == msg.A {
			m.queue = append(m.queue, ask{who: from, ts: m.votedTS})
			m.voteNext(env)
		}
	}
}

// request: a voter whose vote is free gives it; otherwise the request
// waits. In the inquire variant a request better than the one voted for
// asks that vote back, once.
func (m *maekawa) request(env nodes.Env, a ask) {
	if m.votedFor < 0 {
		m.vote(env, a)
		return
	}
	m.queue = append(m.queue, a)
	if m.inquire && !m.inquired && a.before(ask{who: m.votedFor, ts: m.votedTS}) {
		m.inquired = true
		m.send(env, m.votedFor, nodes.Message{Kind: kindInquire, A: m.votedTS})
	}
}

func (m *maekawa) vote(env nodes.Env, a ask) {
	m.votedFor, m.votedTS, m.inquired = a.who, a.ts, false
	m.send(env, a.who, nodes.Message{Kind: kindReply})
}

// voteNext frees the vote and gives it to the next request: the oldest
// (basic) or the best by timestamp (inquire), skipping suspected
// processes.
func (m *maekawa) voteNext(env nodes.Env) {
	m.votedFor = -1
	m.queue = slices.DeleteFunc(m.queue, func(a ask) bool { return m.suspected[a.who] })
	if len(m.queue) == 0 {
		return
	}
	i := 0
	if m.inquire {
		i = slices.IndexFunc(m.queue, func(a ask) bool {
			return !slices.ContainsFunc(m.queue, func(b ask) bool { return b.before(a) })
		})
	}
	a := m.queue[i]
	m.queue = slices.Delete(m.queue, i, i+1)
	m.vote(env, a)
}

// voted counts a vote; "enter when all K+1 votes are in".
func (m *maekawa) voted(env nodes.Env, from int) {
	if m.phase != nodes.PhaseWanted {
		return
	}
	m.votes[from] = true
	for _, i := range m.set {
		if !m.votes[i] && !m.suspected[i] {
			return
		}
	}
	m.enter(env)
}

func (m *maekawa) Timeout(env nodes.Env, t nodes.TimerID) { m.workloadTimeout(env, t) }

// Suspect: a voter frees a vote held by a crashed process and drops its
// requests; a candidate stops waiting for a crashed voter's vote (under a
// perfect detector the crashed voter votes for nobody else either).
func (m *maekawa) Suspect(env nodes.Env, p nodes.PeerID) {
	i := peerIndex(env, p)
	if i < 0 || m.suspected[i] {
		return
	}
	m.suspected[i] = true
	if m.votedFor == i {
		m.voteNext(env)
	}
	m.voted(env, i)
}
