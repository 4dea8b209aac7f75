package nodetest

import (
	"container/heap"
	"math/rand/v2"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// Queue.

const (
	classAction   = iota // At: before the deliveries of its instant
	classDelivery        // deliveries before timers (ALGORITHMS.md, "The reference model")
	classTimer
)

type event struct {
	at      time.Duration
	class   int
	seq     int // ties within a class: send order, arming order
	action  func()
	from    int
	to      int
	m       nodes.Message
	dropped bool
	timer   nodes.TimerID
	gen     int
}

func (n *Net) push(e event) {
	n.seq++
	e.seq = n.seq
	heap.Push(&n.queue, e)
}

type queue []event

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.class != b.class {
		return a.class < b.class
	}
	return a.seq < b.seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// env is one process's view of the network.
type env struct {
	n    *Net
	p    int
	rank nodes.Rank
	rand *rand.Rand
}

func (e *env) Self() nodes.Rank             { return e.rank }
func (e *env) Peers() []nodes.Peer          { return e.n.procs[e.p].peers }
func (e *env) Now() time.Duration           { return e.n.now }
func (e *env) Rand() *rand.Rand             { e.n.randCalls++; return e.rand }
func (e *env) CancelTimer(tm nodes.TimerID) { delete(e.n.procs[e.p].timers, tm) }

func (e *env) After(p nodes.PeerID) (nodes.Peer, bool) {
	n := e.n
	if !n.alg.Topology.IsRing() || p < 0 || int(p) >= len(n.procs) {
		return nodes.Peer{}, false
	}
	q := (int(p) + 1) % len(n.procs)
	return nodes.Peer{ID: nodes.PeerID(q), Rank: n.procs[q].env.rank}, true
}

func (e *env) Decide(l nodes.Rank) {
	pr := e.n.procs[e.p]
	pr.decided = append(pr.decided, l)
	e.n.record(trial.Event{Kind: trial.EvDecide, P: int32(e.p), Leader: l})
}

func (e *env) SetTimer(d time.Duration, tm nodes.TimerID) {
	n := e.n
	n.timersArmed++
	gen := n.seq + 1 // the sequence number push gives the event below
	n.procs[e.p].timers[tm] = armed{at: n.now + d, gen: gen}
	n.push(event{at: n.now + d, class: classTimer, to: e.p, timer: tm, gen: gen})
}

func (e *env) Send(to nodes.PeerID, m nodes.Message) {
	n := e.n
	if to < 0 || int(to) >= len(n.procs) {
		n.t.Fatalf("nodetest: process %d sent %s to peer %d, which does not exist", e.p, m.Kind, to)
	}
	n.total++
	n.sent[m.Kind.String()]++
	n.record(trial.Event{Kind: trial.EvSend, P: int32(e.p), Q: int32(to), Msg: m})
	if n.blocked[[2]int{e.p, int(to)}] {
		n.record(trial.Event{Kind: trial.EvLose, P: int32(e.p), Q: int32(to), Msg: m})
		return
	}
	d := n.unit
	if n.latency != nil {
		d = max(0, n.latency(n.netRand))
	}
	n.push(event{at: n.now + d, class: classDelivery, from: e.p, to: int(to), m: m})
}
