package sim

import (
	"fmt"
	"math/bits"

	"github.com/electbench/electbench/nodes"
)

// Event classes, in the order they are processed at one virtual instant.
const (
	classControl uint64 = iota // initiations and faults
	classDeliver               // message deliveries
	classTimer                 // timer expirations and detector verdicts
)

// order packs an event's class and its schedule sequence number into one
// key, compared after the time: class in the top 8 bits.
func order(class, seq uint64) uint64 { return class<<56 | seq }

// delivery is a message in flight.
type delivery struct {
	at       int64  // virtual nanoseconds
	ord      uint64 // order(classDeliver, seq)
	to, from int32
	msg      nodes.Message
}

// fifo is a growable ring buffer of deliveries in non-decreasing (at, ord)
// order: valid as a priority queue when every message takes the same time.
// Deliveries are 152 bytes and never copied out: slot hands out an entry to
// fill in place, pop the entry to read in place. The buffer keeps the entry
// popped last unused until the next pop, so that it stays valid while the
// event it holds runs and schedules others (when it would be reused, the
// queue moves to a larger buffer and the old one lives while it is read).
type fifo struct {
	buf        []delivery
	head, size int
}

func (q *fifo) len() int { return q.size }

// slot appends an entry and returns it for the caller to fill in place.
func (q *fifo) slot() *delivery {
	if q.size+1 >= len(q.buf) { // the free entry before head may be the one popped last
		q.grow()
	}
	i := q.head + q.size
	if i >= len(q.buf) {
		i -= len(q.buf)
	}
	q.size++
	return &q.buf[i]
}

func (q *fifo) grow() {
	n := max(2*len(q.buf), 64)
	nb := make([]delivery, n)
	k := copy(nb, q.buf[q.head:])
	copy(nb[k:], q.buf[:q.head])
	q.buf, q.head = nb, 0
}

func (q *fifo) push(d delivery) { *q.slot() = d }

func (q *fifo) peek() *delivery { return &q.buf[q.head] }

// pop takes the least entry out; it stays valid until the next pop.
func (q *fifo) pop() *delivery {
	d := &q.buf[q.head]
	q.head++
	if q.head == len(q.buf) {
		q.head = 0
	}
	q.size--
	return d
}

// entry is a heap element: the ordering key and the slot of its payload, so
// sifting moves 24 bytes rather than whole messages, and the process the
// event is for, so that its state can be fetched from memory at the same
// time as the payload rather than after it.
type entry struct {
	at   int64
	ord  uint64
	slot int32
	to   int32
}

func (a entry) less(b entry) bool { return a.at < b.at || (a.at == b.at && a.ord < b.ord) }

// heap4 is a 4-ary min-heap of entries (shallower than binary: fewer cache
// misses with a million pending events).
type heap4 struct{ e []entry }

func (h *heap4) len() int { return len(h.e) }

func (h *heap4) push(x entry) {
	h.e = append(h.e, x)
	i := len(h.e) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !x.less(h.e[p]) {
			break
		}
		h.e[i] = h.e[p]
		i = p
	}
	h.e[i] = x
}

func (h *heap4) pop() entry {
	top := h.e[0]
	n := len(h.e) - 1
	x := h.e[n]
	h.e = h.e[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < c+4 && j < n; j++ {
			if h.e[j].less(h.e[m]) {
				m = j
			}
		}
		if !h.e[m].less(x) {
			break
		}
		h.e[i] = h.e[m]
		i = m
	}
	h.e[i] = x
	return top
}

func (h *heap4) peek() entry { return h.e[0] }

// queue is the simulator's priority queue of events ordered by (at, ord).
type queue interface {
	len() int
	peek() entry // the least entry; only when len() > 0
	pop() entry
	push(entry)
}

// radix is a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990): a
// priority queue for keys that never fall below the last key taken out, which
// holds for event times when every event goes through this one queue (no
// FIFO side queue whose events run first). Entries wait in buckets by the
// highest bit in which their time differs from the last time taken out and
// are appended, not sifted, so with a million events pending it touches
// memory in order where a binary or 4-ary heap misses the cache at every
// level. Bucket 0 holds the entries of exactly the current time as a small
// heap by ord, which orders control before deliveries before timers and
// keeps send order.
type radix struct {
	last    int64
	n       int
	now     heap4 // bucket 0: at == last, ordered by ord
	buckets [64][]entry
	full    uint64 // bit i set when buckets[i] is not empty
	// warm, when set, is shown the entries of every bucket that refill
	// empties while it holds at most warmAhead entries: they are the next
	// events, and loading their state now overlaps the cache misses that
	// would otherwise come one after another.
	warm func([]entry)
}

// warmAhead is how many events ahead radix asks for their state: enough to
// overlap a few dozen cache misses, few enough to stay in the cache until
// they run.
const warmAhead = 128

func (r *radix) len() int { return r.n }

func (r *radix) push(e entry) {
	r.n++
	if e.at == r.last {
		r.now.push(e)
		return
	}
	if e.at < r.last {
		panic(fmt.Sprintf("sim: event at %d scheduled before the current time %d", e.at, r.last))
	}
	b := bits.Len64(uint64(e.at^r.last)) - 1
	r.buckets[b] = append(r.buckets[b], e)
	r.full |= 1 << b
}

// refill moves the entries of the least time into bucket 0 when it is empty.
func (r *radix) refill() {
	if r.now.len() > 0 {
		return
	}
	i := bits.TrailingZeros64(r.full)
	b := r.buckets[i]
	if r.warm != nil && len(b) <= warmAhead {
		r.warm(b)
	}
	least := b[0].at
	for _, e := range b[1:] {
		least = min(least, e.at)
	}
	r.last = least
	for _, e := range b {
		if e.at == least {
			r.now.push(e)
		} else {
			j := bits.Len64(uint64(e.at^least)) - 1
			r.buckets[j] = append(r.buckets[j], e)
			r.full |= 1 << j
		}
	}
	r.buckets[i] = b[:0]
	r.full &^= 1 << i
}

func (r *radix) peek() entry {
	r.refill()
	return r.now.e[0]
}

func (r *radix) pop() entry {
	r.refill()
	r.n--
	return r.now.pop()
}
