package ring

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/electbench/electbench/nodes"
)

// kindRound is Itai–Rodeh's election message: (id, round, hop, bit).
var kindRound = nodes.RegisterKind("IR_ROUND", nodes.ElectionClass)

// maxK bounds the id space so that an id fits a message's counter.
const maxK = 1 << 30

func init() {
	nodes.Register(nodes.Algorithm{
		Name:      "itai-rodeh",
		Family:    "ring",
		Summary:   "Itai–Rodeh 1990 (Fokkink & Pang's asynchronous version): random ids from 1..k each round, hop counters and a tie bit on an anonymous ring of known size",
		Topology:  nodes.RingUni,
		StartsAll: true,
		Model:     nodes.ModelAnonymous,
		ElectsAny: true,
		Params: []nodes.Param{
			{Name: "k", Default: "16", Summary: "the id space: every active process draws its id uniformly from 1..k at each round (a count, 2..2^30)"},
		},
		New: newItaiRodeh,
	})
}

func newItaiRodeh(cfg nodes.Config) (func() nodes.Machine, error) {
	if _, err := nodes.CheckVariant("itai-rodeh", cfg.Variant, "default"); err != nil {
		return nil, err
	}
	if err := nodes.CheckParams("itai-rodeh", cfg.Params, []nodes.Param{{Name: "k"}}); err != nil {
		return nil, err
	}
	k, err := itaiRodehK(cfg.Params)
	if err != nil {
		return nil, err
	}
	n := int64(cfg.N)
	return func() nodes.Machine { return &itaiRodeh{k: k, n: n} }, nil
}

// itaiRodehK reads parameter k, 16 when unset. With k = 1 every round
// ties and the election never ends, so k ≥ 2.
func itaiRodehK(p nodes.Params) (int64, error) {
	v, ok := p["k"]
	if !ok {
		return 16, nil
	}
	k, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || k < 2 || k > maxK {
		return 0, fmt.Errorf("parameter k: %q is not a whole number in 2..%d", v, maxK)
	}
	return k, nil
}

// The states of an Itai–Rodeh process.
const (
	irActive  = iota // competing in its round
	irPassive        // beaten: it only passes messages on
	irLeader         // its own message came back with no tie
)

// itaiRodeh is one process of `itai-rodeh` (ALGORITHMS.md, "itai-rodeh"):
// the asynchronous version of Itai and Rodeh's election with hop counters
// and a tie bit (Fokkink & Pang). It never reads its rank to elect: its
// ids are the ones it draws, from Env.Rand only. The ring's size N is
// known, so a message that has made N hops is its sender's own.
//
// A message is (id, round, hop, bit): Rank carries the drawn id (1..k),
// A the round, B the hop count times two plus the bit, which says that
// another active process drew the same id in the same round.
type itaiRodeh struct {
	next  nodes.PeerID
	k, n  int64
	state int
	round int64
	id    int64
}

func (p *itaiRodeh) Start(env nodes.Env) {
	p.next = env.Peers()[0].ID
	p.state = irActive
	p.draw(env, 1)
}

// draw starts round r with a fresh id: (id, r, 1, false).
func (p *itaiRodeh) draw(env nodes.Env, r int64) {
	p.round, p.id = r, 1+env.Rand().Int64N(p.k)
	env.Send(p.next, nodes.Message{Kind: kindRound, Rank: nodes.RankOf(uint64(p.id)), A: r, B: 1 << 1})
}

// Initiate does nothing: every process starts in Start.
func (p *itaiRodeh) Initiate(nodes.Env) {}

func (p *itaiRodeh) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	switch {
	case m.Kind == kindElected:
		// The winner names itself by its rank so that the harness can tell
		// who won; the election itself used none.
		announce(env, p.next, &m)
	case m.Kind != kindRound:
	case p.state == irPassive:
		m.B += 1 << 1 // one hop more, the bit as it was
		env.Send(p.next, m)
	case p.state == irActive:
		p.compete(env, m)
	default:
		// The leader drops what is left of earlier rounds.
	}
}

// compete is an active process's rule (Fokkink & Pang, Fig. 1).
func (p *itaiRodeh) compete(env nodes.Env, m nodes.Message) {
	id, _ := m.Rank.ID.Small()
	hop, tie := m.B>>1, m.B&1 == 1
	switch c := cmpRoundID(m.A, int64(id), p.round, p.id); {
	case hop == p.n && !tie:
		// Its own message went round and met no equal: the only one left.
		p.state = irLeader
		self := env.Self()
		env.Decide(self)
		env.Send(p.next, elected(self, 0))
	case hop == p.n:
		p.draw(env, p.round+1) // others drew the same: a new round among them
	case c > 0:
		p.state = irPassive // a later round or a larger id: beaten
		m.B += 1 << 1
		env.Send(p.next, m)
	case c == 0:
		m.B = (hop+1)<<1 | 1 // another active process drew the same id: tie
		env.Send(p.next, m)
	default:
		// An earlier round or a smaller id: purged.
	}
}

// cmpRoundID orders (round, id) pairs: round first, then id.
func cmpRoundID(r1, id1, r2, id2 int64) int {
	if c := cmp.Compare(r1, r2); c != 0 {
		return c
	}
	return cmp.Compare(id1, id2)
}

func (p *itaiRodeh) Timeout(nodes.Env, nodes.TimerID) {}

// Suspect does nothing: the algorithm assumes no failures.
func (p *itaiRodeh) Suspect(nodes.Env, nodes.PeerID) {}
