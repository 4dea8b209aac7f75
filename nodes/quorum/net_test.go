package quorum

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/quorum/tally"
)

// T is the fake network's mean one-way latency.
const T = time.Millisecond

// net is a small discrete-event driver for this package's tests, with no
// dependency on the simulator: every process on the complete topology,
// latency T (or a model), at one instant control actions, then deliveries in
// send order, then timers in arming order. It can hand one process one event
// and show exactly what it did, cut links (partitions), crash a process, and
// pause one (SIGSTOP: its deliveries and timers wait until it resumes).
//
// It also keeps its own, deliberately simple, safety monitor — an
// independent second reading of the rules the checker in workloads applies:
// at most one process sends the Leader kind per term, it had grants from a
// majority delivered first, and no two lease claims overlap.
type net struct {
	t       *testing.T
	alg     *nodes.Algorithm
	machine func() nodes.Machine
	ranks   []nodes.Rank // by position
	peers   []nodes.Peer // ascending rank, PeerID = position
	procs   []nodes.Machine
	envs    []*fakeEnv
	crashed []bool
	paused  []bool
	held    [][]event       // per paused process, its events in order
	blocked map[[2]int]bool // directed links that lose every message
	latency func(*rand.Rand) time.Duration
	netRand *rand.Rand

	now    time.Duration
	queue  events
	seq    int
	timers map[timerKey]int

	out     []envelope // sent since the last take, unless quiet
	quiet   bool       // long runs: keep no envelopes
	sent    map[string]int
	fired   map[string]int
	decided [][]nodes.Rank

	lease      time.Duration
	leaderOf   map[int64]int             // term → position of the first process to act as its leader
	granted    map[[2]int64]map[int]bool // (receiver, term) → voters whose grant was delivered
	leases     map[int][2]time.Duration  // position → its latest lease [start, end)
	violations []string
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
// ids[i]) running algorithm spec with params.
func newNet(t *testing.T, spec string, params nodes.Params, ids ...uint64) *net {
	t.Helper()
	n := build(t, spec, params, ids...)
	n.startAll()
	return n
}

// build prepares a net without starting it, so that a test can cut links
// first.
func build(t *testing.T, spec string, params nodes.Params, ids ...uint64) *net {
	t.Helper()
	alg, variant, err := nodes.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := nodes.Config{Variant: variant, Params: params, N: len(ids), T: T}
	newMachine, err := alg.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := &net{
		t: t, alg: alg, machine: newMachine,
		crashed: make([]bool, len(ids)), paused: make([]bool, len(ids)), held: make([][]event, len(ids)),
		blocked: map[[2]int]bool{}, netRand: rand.New(rand.NewPCG(1, 1)),
		timers: map[timerKey]int{}, sent: map[string]int{}, fired: map[string]int{},
		decided:  make([][]nodes.Rank, len(ids)),
		leaderOf: map[int64]int{}, granted: map[[2]int64]map[int]bool{},
		leases: map[int][2]time.Duration{},
	}
	if alg.Quorum.Lease != nil {
		if n.lease, err = alg.Quorum.Lease(cfg); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range ids {
		n.ranks = append(n.ranks, nodes.RankOf(id))
		n.peers = append(n.peers, nodes.Peer{ID: nodes.PeerID(i), Rank: nodes.RankOf(id)})
		n.procs = append(n.procs, newMachine())
		n.envs = append(n.envs, &fakeEnv{n: n, p: i, rand: rand.New(rand.NewPCG(uint64(i), 7))})
	}
	slices.SortFunc(n.peers, func(a, b nodes.Peer) int { return a.Rank.Compare(b.Rank) })
	return n
}

func (n *net) startAll() {
	for i, p := range n.procs {
		if !n.crashed[i] {
			p.Start(n.envs[i])
		}
	}
}

// ascending returns the ids 1..k (position i holds id i+1).
func ascending(k int) []uint64 {
	ids := make([]uint64, k)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	return ids
}

// cut makes every message between the groups lose, both ways: a partition.
func (n *net) cut(groups ...[]int) {
	for a, g := range groups {
		for b, h := range groups {
			if a == b {
				continue
			}
			for _, p := range g {
				for _, q := range h {
					n.blocked[[2]int{p, q}] = true
				}
			}
		}
	}
}

// heal restores every link.
func (n *net) heal() { clear(n.blocked) }

func (n *net) crash(p int) { n.crashed[p] = true }

// restart replaces p with a fresh machine, started now: a process restarted
// without stable storage.
func (n *net) restart(p int) {
	for k := range n.timers {
		if k.p == p {
			delete(n.timers, k)
		}
	}
	n.crashed[p] = false
	n.procs[p] = n.machine()
	n.procs[p].Start(n.envs[p])
}

func (n *net) pause(p int) { n.paused[p] = true }

// resume wakes p: what it missed is handed over now, in order.
func (n *net) resume(p int) {
	n.paused[p] = false
	held := n.held[p]
	n.held[p] = nil
	for _, e := range held {
		e.at = n.now
		n.push(e)
	}
}

// Events handed directly, at the current time, bypassing the queue.
func (n *net) initiate(p int) { n.handle(p, func(e *fakeEnv) { n.procs[p].Initiate(e) }) }
func (n *net) suspect(p, q int) {
	n.handle(p, func(e *fakeEnv) { n.procs[p].Suspect(e, nodes.PeerID(q)) })
}
func (n *net) receive(p, from int, m nodes.Message) {
	n.observeDelivery(p, from, m)
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
	if !n.crashed[p] {
		f(n.envs[p])
	}
}

// run processes events until the time passes limit (time never goes back).
func (n *net) run(limit time.Duration) {
	limit = max(limit, n.now)
	for n.queue.Len() > 0 && n.queue[0].at <= limit {
		e := heap.Pop(&n.queue).(event)
		n.now = e.at
		if e.action == nil && n.paused[e.to] {
			n.held[e.to] = append(n.held[e.to], e)
			continue
		}
		switch {
		case e.action != nil:
			e.action()
		case e.timer != 0:
			k := timerKey{e.to, e.timer}
			if gen, ok := n.timers[k]; !ok || gen != e.gen {
				continue
			}
			delete(n.timers, k)
			if n.crashed[e.to] {
				continue
			}
			n.fired[e.timer.String()]++
			n.handle(e.to, func(env *fakeEnv) { n.procs[e.to].Timeout(env, e.timer) })
		default:
			if n.crashed[e.to] {
				continue
			}
			n.observeDelivery(e.to, e.from, e.m)
			n.handle(e.to, func(env *fakeEnv) { n.procs[e.to].Receive(env, nodes.PeerID(e.from), e.m) })
		}
	}
	n.now = limit
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

// belief is p's latest decision (0: none).
func (n *net) belief(p int) uint64 {
	if len(n.decided[p]) == 0 {
		return 0
	}
	v, _ := n.decided[p][len(n.decided[p])-1].ID.Small()
	return v
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
	for _, e := range n.held[p] {
		if e.timer == tm && e.gen == gen {
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

// expectArmedWithin checks that p's timer tm expires within [lo, hi].
func (n *net) expectArmedWithin(p int, tm nodes.TimerID, lo, hi time.Duration) {
	n.t.Helper()
	if got := n.armed(p, tm); got < lo || got > hi {
		n.t.Fatalf("process %d: timer %s expires at %v, want within [%v, %v]", p, tm, got, lo, hi)
	}
}

// safe fails the test on any violation the monitor saw.
func (n *net) safe() {
	n.t.Helper()
	if len(n.violations) > 0 {
		n.t.Fatalf("%d safety violations, the first: %s", len(n.violations), n.violations[0])
	}
}

func (n *net) observeSend(from int, m nodes.Message) {
	q := n.alg.Quorum
	if m.Kind == q.Leader {
		if l, ok := n.leaderOf[m.A]; !ok {
			n.leaderOf[m.A] = from
			if votes := len(n.granted[[2]int64{int64(from), m.A}]) + 1; votes < tally.Majority(len(n.procs)) {
				n.violations = append(n.violations, fmt.Sprintf("%v: process %d leads term %d with %d votes", n.now, from, m.A, votes))
			}
		} else if l != from {
			n.violations = append(n.violations, fmt.Sprintf("%v: term %d has leaders %d and %d", n.now, m.A, l, from))
		}
		if n.lease > 0 {
			for p, s := range n.leases {
				if p != from && s[1] > n.now {
					n.violations = append(n.violations, fmt.Sprintf("%v: %d claims a lease while %d holds %v", n.now, from, p, s))
				}
			}
			s, ok := n.leases[from]
			if !ok || n.now >= s[1] {
				s[0] = n.now
			}
			s[1] = n.now + n.lease
			n.leases[from] = s
		}
	}
}

func (n *net) observeDelivery(to, from int, m nodes.Message) {
	if m.Kind != n.alg.Quorum.Grant || m.B == 0 {
		return
	}
	k := [2]int64{int64(to), m.A}
	if n.granted[k] == nil {
		n.granted[k] = map[int]bool{}
	}
	n.granted[k][from] = true
}

func show(es []envelope) string {
	s := "["
	for i, e := range es {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d→%d:%s", e.from, e.to, e.m.Kind)
		if e.m.A != 0 || e.m.B != 0 {
			s += fmt.Sprintf("(%d,%d)", e.m.A, e.m.B)
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
	n    *net
	p    int
	rand *rand.Rand
}

func (e *fakeEnv) Self() nodes.Rank                      { return e.n.ranks[e.p] }
func (e *fakeEnv) Peers() []nodes.Peer                   { return e.n.peers }
func (e *fakeEnv) After(nodes.PeerID) (nodes.Peer, bool) { return nodes.Peer{}, false }
func (e *fakeEnv) Now() time.Duration                    { return e.n.now }
func (e *fakeEnv) Rand() *rand.Rand                      { return e.rand }
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
	if int(to) == e.p {
		n.t.Fatalf("process %d sent %s to itself", e.p, m.Kind)
	}
	if !n.quiet {
		n.out = append(n.out, envelope{from: e.p, to: int(to), m: m})
	}
	n.sent[m.Kind.String()]++
	n.observeSend(e.p, m)
	if n.blocked[[2]int{e.p, int(to)}] {
		return // counted, and lost
	}
	d := T
	if n.latency != nil {
		d = n.latency(n.netRand)
	}
	n.push(event{at: n.now + d, class: 1, to: int(to), from: e.p, m: m})
}
