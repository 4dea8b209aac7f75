package bully

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

// T is the fake network's one-way latency.
const T = time.Millisecond

// net is a tiny discrete-event driver for this package's unit tests, with no
// dependency on the simulator: the reference model of ALGORITHMS.md (every
// message takes exactly T; at one instant, control actions, then deliveries
// in send order, then timers in arming order), crash-at-start, and hooks to
// hand one process one event and look at exactly what it did.
type net struct {
	t       *testing.T
	ranks   []nodes.Rank // by position
	peers   []nodes.Peer // ascending rank, PeerID = position
	procs   []nodes.Machine
	envs    []*fakeEnv
	crashed []bool

	now    time.Duration
	queue  events
	seq    int
	timers map[timerKey]int // armed timers: key → generation

	out          []envelope     // sent since the last take
	sent         map[string]int // by kind
	total        int
	fired        map[string]int // timer expirations by name
	lastElection time.Duration  // last delivery of a message; -1 if none
	decided      [][]nodes.Rank // every decision of every process, in order
	violations   int            // times two live processes in Normal disagreed
}

type envelope struct {
	from, to int
	m        nodes.Message
}

type timerKey struct {
	p int
	t nodes.TimerID
}

// newNet builds and starts processes with the given ids (position i has id
// ids[i]) running algorithm "name" or "name/variant" with params.
func newNet(t *testing.T, spec string, params nodes.Params, ids ...uint64) *net {
	t.Helper()
	alg, variant, err := nodes.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	newMachine, err := alg.New(nodes.Config{Variant: variant, Params: params, N: len(ids), T: T})
	if err != nil {
		t.Fatal(err)
	}
	n := &net{
		t:            t,
		crashed:      make([]bool, len(ids)),
		timers:       map[timerKey]int{},
		sent:         map[string]int{},
		fired:        map[string]int{},
		lastElection: -1,
		decided:      make([][]nodes.Rank, len(ids)),
	}
	for i, id := range ids {
		n.ranks = append(n.ranks, nodes.RankOf(id))
		n.peers = append(n.peers, nodes.Peer{ID: nodes.PeerID(i), Rank: nodes.RankOf(id)})
		n.procs = append(n.procs, newMachine())
		n.envs = append(n.envs, &fakeEnv{n: n, p: i})
	}
	slices.SortFunc(n.peers, func(a, b nodes.Peer) int { return a.Rank.Compare(b.Rank) })
	for i, p := range n.procs {
		p.Start(n.envs[i])
	}
	return n
}

// ascending returns the ids 1..n (position i holds id i+1).
func ascending(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	return ids
}

// shuffled returns the ids 1..n in a random order drawn from seed.
func shuffled(n int, seed uint64) []uint64 {
	ids := ascending(n)
	r := rand.New(rand.NewPCG(seed, 1))
	r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}

// pos returns the position of the process with id.
func (n *net) pos(id uint64) int { return slices.Index(n.ranks, nodes.RankOf(id)) }

// crash makes p silent from now on: it handles no event; messages sent to it
// are counted and lost.
func (n *net) crash(p int) { n.crashed[p] = true }

// Events handed over directly, at the current time, bypassing the queue.
func (n *net) initiate(p int) { n.handle(p, func(e *fakeEnv) { n.procs[p].Initiate(e) }) }
func (n *net) suspect(p, q int) {
	n.handle(p, func(e *fakeEnv) { n.procs[p].Suspect(e, nodes.PeerID(q)) })
}
func (n *net) receive(p, from int, m nodes.Message) {
	n.handle(p, func(e *fakeEnv) { n.procs[p].Receive(e, nodes.PeerID(from), m) })
}

// expire fires p's timer tm now, as the runtime would if it were armed.
func (n *net) expire(p int, tm nodes.TimerID) {
	n.t.Helper()
	if _, ok := n.timers[timerKey{p, tm}]; !ok {
		n.t.Fatalf("process %d: timer %s is not armed", p, tm)
	}
	delete(n.timers, timerKey{p, tm})
	n.fired[tm.String()]++
	n.handle(p, func(e *fakeEnv) { n.procs[p].Timeout(e, tm) })
}

// at schedules f at time d, before the deliveries of that instant.
func (n *net) at(d time.Duration, f func()) { n.push(event{at: d, class: 0, action: f}) }

func (n *net) handle(p int, f func(*fakeEnv)) {
	if n.crashed[p] {
		return
	}
	f(n.envs[p])
	n.checkPhases()
}

// checkPhases counts a violation of the two-phase invariant (ALGORITHMS.md:
// "any two processes in Normal agree on the leader") among live processes
// that have decided.
func (n *net) checkPhases() {
	var leader nodes.Rank
	for i, p := range n.procs {
		ph, ok := p.(nodes.Phased)
		if !ok || n.crashed[i] || ph.Phase() != nodes.PhaseNormal || len(n.decided[i]) == 0 {
			continue
		}
		l := n.decided[i][len(n.decided[i])-1]
		if leader.IsZero() {
			leader = l
		} else if l != leader {
			n.violations++
			return
		}
	}
}

// run processes events until none is left or the time passes limit.
func (n *net) run(limit time.Duration) {
	n.t.Helper()
	for n.queue.Len() > 0 {
		e := heap.Pop(&n.queue).(event)
		if e.at > limit {
			n.t.Fatalf("still running at %v", e.at)
		}
		n.now = e.at
		switch {
		case e.action != nil:
			e.action()
		case e.timer != 0:
			k := timerKey{e.to, e.timer}
			if gen, ok := n.timers[k]; !ok || gen != e.gen || n.crashed[e.to] {
				continue
			}
			delete(n.timers, k)
			n.fired[e.timer.String()]++
			n.handle(e.to, func(env *fakeEnv) { n.procs[e.to].Timeout(env, e.timer) })
		default:
			if n.crashed[e.to] {
				continue
			}
			if e.m.Kind.IsElection() {
				n.lastElection = n.now
			}
			n.handle(e.to, func(env *fakeEnv) { n.procs[e.to].Receive(env, nodes.PeerID(e.from), e.m) })
		}
	}
}

// take returns what was sent since the last take.
func (n *net) take() []envelope {
	out := n.out
	n.out = nil
	return out
}

// expect checks what was sent since the last take, in order.
func (n *net) expect(want ...envelope) {
	n.t.Helper()
	if got := n.take(); !slices.Equal(got, want) {
		n.t.Fatalf("sent %s, want %s", show(got), show(want))
	}
}

// expectDecided checks every decision process p has made so far.
func (n *net) expectDecided(p int, want ...uint64) {
	n.t.Helper()
	var got []uint64
	for _, r := range n.decided[p] {
		v, _ := r.ID.Small()
		got = append(got, v)
	}
	if !slices.Equal(got, want) {
		n.t.Fatalf("process %d decided %v, want %v", p, got, want)
	}
}

// armed reports when p's timer tm expires, or -1 if it is not armed.
func (n *net) armed(p int, tm nodes.TimerID) time.Duration {
	gen, ok := n.timers[timerKey{p, tm}]
	if !ok {
		return -1
	}
	for _, e := range n.queue {
		if e.to == p && e.timer == tm && e.gen == gen {
			return e.at
		}
	}
	panic("armed timer without an event")
}

func (n *net) expectArmed(p int, tm nodes.TimerID, at time.Duration) {
	n.t.Helper()
	if got := n.armed(p, tm); got != at {
		n.t.Fatalf("process %d: timer %s expires at %v, want %v (-1: not armed)", p, tm, got, at)
	}
}

func show(es []envelope) string {
	s := "["
	for i, e := range es {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d→%d:%s", e.from, e.to, e.m.Kind)
		if !e.m.Rank.IsZero() {
			s += fmt.Sprintf("(%v)", e.m.Rank)
		}
	}
	return s + "]"
}

type event struct {
	at     time.Duration
	class  int // 0 control, 1 delivery, 2 timer
	seq    int
	action func()
	to     int
	from   int
	m      nodes.Message
	timer  nodes.TimerID
	gen    int
}

func (n *net) push(e event) {
	n.seq++
	e.seq = n.seq
	heap.Push(&n.queue, e)
}

type events []event

func (q events) Len() int { return len(q) }
func (q events) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.class != b.class {
		return a.class < b.class
	}
	return a.seq < b.seq
}
func (q events) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *events) Push(x any)   { *q = append(*q, x.(event)) }
func (q *events) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// fakeEnv is one process's view of the net.
type fakeEnv struct {
	n *net
	p int
}

func (e *fakeEnv) Self() nodes.Rank                      { return e.n.ranks[e.p] }
func (e *fakeEnv) Peers() []nodes.Peer                   { return e.n.peers }
func (e *fakeEnv) After(nodes.PeerID) (nodes.Peer, bool) { return nodes.Peer{}, false }
func (e *fakeEnv) Now() time.Duration                    { return e.n.now }
func (e *fakeEnv) Rand() *rand.Rand                      { return rand.New(rand.NewPCG(uint64(e.p), 0)) }
func (e *fakeEnv) Decide(l nodes.Rank)                   { e.n.decided[e.p] = append(e.n.decided[e.p], l) }
func (e *fakeEnv) CancelTimer(tm nodes.TimerID)          { delete(e.n.timers, timerKey{e.p, tm}) }
func (e *fakeEnv) SetTimer(d time.Duration, tm nodes.TimerID) {
	n := e.n
	k := timerKey{e.p, tm}
	gen := n.seq + 1 // the sequence number of the event below: unique per arming
	n.timers[k] = gen
	n.push(event{at: n.now + d, class: 2, to: e.p, timer: tm, gen: gen})
}

func (e *fakeEnv) Send(to nodes.PeerID, m nodes.Message) {
	n := e.n
	if to < 0 || int(to) >= len(n.procs) {
		n.t.Fatalf("process %d sent %s to peer %d, which does not exist", e.p, m.Kind, to)
	}
	n.out = append(n.out, envelope{from: e.p, to: int(to), m: m})
	n.sent[m.Kind.String()]++
	n.total++
	n.push(event{at: n.now + T, class: 1, to: int(to), from: e.p, m: m})
}
