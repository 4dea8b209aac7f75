package harness

import (
	"cmp"
	"container/heap"
	"math"
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// Happens-before across hosts. On several hosts each event is stamped by
// its node's host clock, corrected by the estimate of that clock
// (clock.go): within the estimate's bound of the harness's clock, no
// closer. Where the bound nears a message's delay, or the estimate is
// simply wrong, a receive can be stamped before its send, and a decision
// before the message that caused it: a history no run can have, which the
// checker, the trace, its message-sequence diagrams and the delays would
// take as it is. So where the clocks were estimated (Record.Clocked) the
// held events are emitted in an order that keeps happens-before: a
// process's own events in their order, a receive after its send. Each is
// placed at the least time that allows it: its stamp, or the time given
// to its process's previous event or to its send, whichever is latest. A
// receive stamped before its send is so placed at its send's time, a
// delay of zero, rather than at the send plus some delay: any delay added
// would be a figure made up, and the least move keeps every time within
// the estimate's bound of the truth where the bound holds (each cause's
// stamp is at most the bound past its true time, which is before the
// effect's). One host and the simulator have one clock and order events
// by it, as before.

// causalOrder says the harness orders a clocked trial's events by
// happens-before (a variable: a test turns it off to see the history the
// stamps alone give).
var causalOrder = true

// held is one held event as the causal order sees it.
type held struct {
	at  time.Duration // its stamp, on the harness's clock as corrected
	seq uint64        // arrival order: events of equal time keep it
	// proc is whose event it is (a receive's receiver's); -1 for the
	// harness's own (a crash, a fault), on the harness's clock, which
	// stay where they are.
	proc int32
	// send is the index among the held of a receive's send, -1 if it is
	// emitted or unknown; after is the time an emitted send was given.
	send  int32
	after time.Duration
	// waits: a receive whose send's step line is still to come, which
	// nothing of its process may pass.
	waits bool
}

// causal is what the causal order keeps between flushes: each process's
// latest time emitted, the latest of all, and what it moved.
type causal struct {
	floor []time.Duration
	// last is the latest time emitted: an event that waited past it (a
	// receive whose send never came) goes no earlier, so that the stream
	// stays in time order.
	last  time.Duration
	moved moves
}

// moves counts the events placed later than stamped: receives, for
// their send, and the other events that followed their process's.
type moves struct {
	recvs, others int64
	most          time.Duration // the largest move
}

func newCausal(n int) *causal {
	c := &causal{floor: make([]time.Duration, n), last: math.MinInt64}
	for i := range c.floor {
		c.floor[i] = math.MinInt64
	}
	return c
}

// order emits through emit, in order, the events of hs (sorted by time,
// then arrival) that, placed as the package comment says, are no later
// than w, each with its place. Events placed later than w, and those that
// wait on a receive, stay for a later call. Times emitted never decrease:
// an event becomes ready only once its causes are emitted, at no earlier
// than theirs, and the ready go out earliest first.
func (c *causal) order(hs []held, w time.Duration, emit func(i int, at time.Duration)) {
	n := len(hs)
	next, recvOf := make([]int32, n), make([]int32, n)
	deps := make([]uint8, n)
	place := make([]time.Duration, n)
	last := make([]int32, len(c.floor))
	for _, s := range [][]int32{next, recvOf, last} {
		for i := range s {
			s[i] = -1
		}
	}
	ready := &readyHeap{hs: hs, place: place}
	for i := range hs {
		h := &hs[i]
		place[i] = max(h.at, h.after, c.last)
		if h.proc >= 0 {
			if j := last[h.proc]; j >= 0 {
				next[j] = int32(i)
				deps[i]++
			} else {
				place[i] = max(place[i], c.floor[h.proc])
			}
			last[h.proc] = int32(i)
		}
		if h.send >= 0 {
			recvOf[h.send] = int32(i)
			deps[i]++
		}
		if h.waits {
			deps[i]++ // for good: its send is not among hs
		}
	}
	for i := range hs {
		if deps[i] == 0 {
			ready.idx = append(ready.idx, int32(i))
		}
	}
	heap.Init(ready)
	for ready.Len() > 0 && place[ready.idx[0]] <= w {
		i := heap.Pop(ready).(int32)
		h, at := &hs[i], place[i]
		if at > h.at {
			// A receive is moved for its message if its send's time
			// placed it, else for its process's previous event.
			c.moved.add(at == h.after || h.send >= 0 && at == place[h.send], at-h.at)
		}
		emit(int(i), at)
		c.last = at
		if h.proc >= 0 {
			c.floor[h.proc] = at
		}
		for _, s := range [2]int32{next[i], recvOf[i]} {
			if s < 0 {
				continue
			}
			place[s] = max(place[s], at)
			if deps[s]--; deps[s] == 0 {
				heap.Push(ready, s)
			}
		}
	}
}

func (m *moves) add(recv bool, by time.Duration) {
	if recv {
		m.recvs++
	} else {
		m.others++
	}
	m.most = max(m.most, by)
}

// readyHeap are the events whose causes are emitted, earliest place
// first, then earliest arrival.
type readyHeap struct {
	idx   []int32
	hs    []held
	place []time.Duration
}

func (r *readyHeap) Len() int { return len(r.idx) }
func (r *readyHeap) Less(a, b int) bool {
	x, y := r.idx[a], r.idx[b]
	if c := cmp.Compare(r.place[x], r.place[y]); c != 0 {
		return c < 0
	}
	return r.hs[x].seq < r.hs[y].seq
}
func (r *readyHeap) Swap(a, b int) { r.idx[a], r.idx[b] = r.idx[b], r.idx[a] }
func (r *readyHeap) Push(x any)    { r.idx = append(r.idx, x.(int32)) }
func (r *readyHeap) Pop() any {
	k := len(r.idx) - 1
	x := r.idx[k]
	r.idx = r.idx[:k]
	return x
}

// procOf is whose event e is, for the causal order: a receive's
// receiver, the node that reported any other step, and -1 for the
// harness's own events, stamped on its clock.
func procOf(e *entry) int32 {
	switch e.kind {
	case trial.EvRecv:
		return e.q
	case trial.EvCrash, trial.EvRestart, trial.EvPause, trial.EvResume, trial.EvFault:
		return -1
	}
	return e.p
}

// flushCausal emits, in happens-before order (the package comment), the
// held events placed no later than w; pending is sorted. At the end (final)
// a receive whose send never came waits no more.
func (l *eventLog) flushCausal(w time.Duration, final bool) {
	if l.causal == nil {
		l.causal = newCausal(l.n)
	}
	sends := map[uint64]int32{}
	for k, i := range l.pending {
		if e := &l.slots[i]; e.kind == trial.EvSend {
			sends[e.id] = int32(k)
		}
	}
	// Positions with a process whose output is still to come: a delivery
	// from a position with none will see no send's line. From one
	// restarted since, a delivery that came before the old process ended
	// is an orphan; one that came after waits for the end.
	open := make([]bool, l.n)
	for p := range l.wm.clocks {
		if p.pos >= 0 {
			open[p.pos] = true
		}
	}
	hs := make([]held, len(l.pending))
	for k, i := range l.pending {
		e := &l.slots[i]
		h := held{at: e.at, seq: e.seq, proc: procOf(e), send: -1}
		if e.kind == trial.EvRecv && e.id != 0 {
			if s, ok := sends[e.id]; ok {
				h.send = s
			} else if s, ok := l.sends[e.id]; ok {
				h.after = s.at
			}
		}
		// Unpaired and queued: a delivery whose send's line has not come,
		// while its sender may still report it.
		h.waits = e.kind == trial.EvRecv && e.queued && !e.orphan && !final && open[e.p]
		hs[k] = h
	}
	done := make([]bool, len(hs))
	l.causal.order(hs, w, func(k int, at time.Duration) {
		done[k] = true
		i := l.pending[k]
		l.slots[i].at = at
		l.emit(i)
	})
	kept := l.pending[:0]
	for k, i := range l.pending {
		if !done[k] {
			kept = append(kept, i)
		}
	}
	l.pending = kept
	l.mark = max(l.mark, w)
}

// orphan notes that position p's process, not yet replaced, said all it
// will: the deliveries from it whose send's line has not come will get
// none, and wait for it no more (flushCausal). A process killed between
// its write to a socket and its step line leaves such a delivery.
func (l *eventLog) orphan(p int) {
	for q := range l.n {
		for _, j := range l.flight[p*l.n+q].early {
			l.slots[j].orphan = true
		}
	}
}
