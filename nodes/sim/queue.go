package sim

import (
	"fmt"
	"math/bits"
	"unsafe"

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

// delivery is a message in flight, kept whole: on a ring under constant
// latency, whose pending set is a message or two a process, packing and
// unpacking each message cost more than its bytes save (chang-roberts at
// N = 10^7: 2.00-2.22 CPU-s whole, 2.34-2.40 packed).
type delivery struct {
	at       int64  // virtual nanoseconds
	ord      uint64 // order(classDeliver, seq)
	to, from int32
	msg      nodes.Message
}

// packedDelivery is a message in flight packed as in the slab (packed.go):
// 56 bytes, not 168, and no pointer for the collector to scan. A complete
// graph under constant latency holds its deliveries so (sim.packFifo):
// bully at N = 4,096 under 1 ms holds about 25 million at its busiest, 4.2
// GB whole, and spent 7 of its 16.5 s in the kernel faulting them in.
type packedDelivery struct {
	at  int64  // virtual nanoseconds
	ord uint64 // order(classDeliver, seq)
	p   payload
}

// fifo is a queue of deliveries (D: delivery or packedDelivery) in
// non-decreasing (at, ord) order: valid as a priority queue when every
// message takes the same time. Deliveries are never copied: slot hands
// out an entry to fill in place, pop the entry to read in place.
//
// It holds its entries in blocks, linked in order, and never moves one: a
// queue that fills keeps its entries where they are and adds a block, so
// what it holds at its busiest instant is what is pending, give or take a
// block, and nothing more (a ring buffer that doubles holds up to twice
// that, and for the copy both the old buffer and the new one: hs's two
// million probes on a million processes took 530 MB of buffers where 336
// MB were pending). Blocks start small, for the many small trials of a
// sweep, and grow to fifoBlockMax entries; a block the queue has emptied
// waits in a free list for the next one it needs. The block of the entry popped last
// joins that list only at the next pop, so the entry stays valid while the
// event it holds runs and schedules others.
type fifo[D any] struct {
	// he and te are the entries of head and tail: the hot path indexes
	// them without going through the blocks.
	he, te     []D
	hi, ti     int // the least entry's index in head; the next free index in tail
	size       int
	head, tail *fifoBlock[D] // the block of the least entry, and of the last (nil: none yet)
	free       *fifoBlock[D] // emptied blocks, linked by next
	// done is the block emptied by a pop; it is free once another pop
	// has happened (hi > 0: head moved on at that pop, to index 0).
	done  *fifoBlock[D]
	grown int // entries of the largest block made so far
}

// fifoBlock is one block of the queue: entries in order, then the next
// block's.
type fifoBlock[D any] struct {
	e    []D
	next *fifoBlock[D]
}

// fifoBlockMin and fifoBlockMax bound the entries of a block: 11 kB to
// 172 kB whole, 3.5 kB to 56 kB packed.
const (
	fifoBlockMin = 64
	fifoBlockMax = 1024
)

func (q *fifo[D]) len() int { return q.size }

// slot appends an entry and returns it for the caller to fill in place.
func (q *fifo[D]) slot() *D {
	if q.ti >= len(q.te) {
		q.link()
	}
	d := &q.te[q.ti]
	q.ti++
	q.size++
	return d
}

// link appends an empty block: one emptied before, or a new one, twice as
// large as the largest so far up to fifoBlockMax.
func (q *fifo[D]) link() {
	if q.done != nil && q.hi > 0 {
		q.release()
	}
	b := q.free
	if b != nil {
		q.free, b.next = b.next, nil
	} else {
		q.grown = min(max(2*q.grown, fifoBlockMin), fifoBlockMax)
		b = &fifoBlock[D]{e: make([]D, q.grown)}
	}
	switch {
	case q.tail == nil:
		q.head, q.he, q.hi = b, b.e, 0
	case q.size == 0:
		// Empty, its one block full and read to its end: that block holds
		// the entry popped last, so it is free only after the next pop.
		if q.done != nil {
			q.release()
		}
		q.done = q.tail
		q.head, q.he, q.hi = b, b.e, 0
	default:
		q.tail.next = b
	}
	q.tail, q.te, q.ti = b, b.e, 0
}

// release puts the block done into the free list.
func (q *fifo[D]) release() {
	q.done.next, q.free = q.free, q.done
	q.done = nil
}

func (q *fifo[D]) peek() *D { return &q.he[q.hi] }

// pop takes the least entry out; it stays valid until the next pop.
func (q *fifo[D]) pop() *D {
	d := &q.he[q.hi]
	q.hi++
	q.size--
	if q.hi == len(q.he) && q.head != q.tail {
		q.advance()
	}
	return d
}

// advance moves head to the next block, when the last pop read it to its
// end: that block holds the entry popped, so it is done, not free.
func (q *fifo[D]) advance() {
	if q.done != nil {
		q.release() // a pop, this one, has happened since
	}
	q.done = q.head
	q.head = q.head.next
	q.done.next = nil
	q.he, q.hi = q.head.e, 0
}

// PendingBytes is what one pending event (a message in flight, an armed
// timer) costs the simulator at a trial's busiest instant, for the plan's
// memory estimate (workloads' Trial.Estimate) to price the events pending
// then. Under constant latency a message is a delivery in the FIFO
// queue's blocks, which hold what is pending and at most two blocks more
// (under 350 kB; an eighth more is priced); whole, as on a ring, which
// bounds a complete graph's packed one too. Otherwise an event is a
// packed payload in the slab (40 bytes, its free list inside), 8 bytes
// more priced, and its entries: in the radix heap's buckets, which keep
// the capacity they reached as events move down them (measured within six
// entries an event for 200,000 to 400,000 pending messages, lcr and hs on
// 200,000 processes, uniform and normal latency), until the pending set
// reaches wheelFrom; from then in the wheel (wheel.go), with its payload
// and no slot: an entry in a block (56 bytes and a quarter with the
// block's link), the capacity of the buffer its bucket is drained into
// (two entries at most), and at most one part-filled block a bucket
// (2^11 blocks of 1,800 bytes, about 14 bytes an event for the 2^18
// events or more it holds, under 4 for 2^20 or more): under 196 bytes at 2^18,
// within the radix heap's bound from 2^19 on, and the slots the radix
// heap used before the trade, a fixed 10 MB; its overflow heap holds the
// timers and fault-delayed messages past twice the delay bound, few. Both
// are bounds of the live bytes: garbage beyond them (the radix heap's
// buckets once traded) is the collector's, which the run's memory limit
// keeps below it (docs/DESIGN.md, "The plan guard").
func PendingBytes(constantLatency bool) int {
	if constantLatency {
		return int(unsafe.Sizeof(delivery{})) * 9 / 8
	}
	return int(unsafe.Sizeof(payload{}) + 2*unsafe.Sizeof(int32(0)) + 6*unsafe.Sizeof(entry{}))
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
	peek() entry // the least entry's key (its slot may be none: wheel.peek); only when len() > 0
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

// each calls f with every entry the heap holds, in no particular order.
func (r *radix) each(f func(entry)) {
	for _, e := range r.now.e {
		f(e)
	}
	for _, b := range r.buckets {
		for _, e := range b {
			f(e)
		}
	}
}

// sorted is a small trial's queue (smallUntil): a few entries held in
// order, the least last, so that pop and peek read the end and push moves
// the entries less than its own up one place. A raft trial at N = 5
// holds a dozen events pending, which a push passes in a few moves, where
// a heap's pop compares its way down the levels (heap4's pop and push
// were 16% of the trial's CPU, the radix heap's refill 10%: issue 42).
// Past sortedMax entries, a push costs more than a heap's; the queue
// then moves them into a radix heap and goes through it from there on
// (big), which the simulator takes over at its next look (sim.grow).
type sorted struct {
	e    []entry
	last int64  // the time of the entry taken out last: the radix heap's floor
	big  *radix // nil until the queue outgrows sortedMax
}

// sortedMax is the most entries sorted holds in order. A variable, as
// wheelFrom, for the tests.
var sortedMax = 64

func (q *sorted) len() int {
	if q.big != nil {
		return q.big.len()
	}
	return len(q.e)
}

func (q *sorted) push(x entry) {
	if q.big != nil {
		q.big.push(x)
		return
	}
	if len(q.e) >= sortedMax {
		q.big = &radix{last: q.last}
		for _, e := range q.e {
			q.big.push(e)
		}
		q.e = q.e[:0]
		q.big.push(x)
		return
	}
	q.e = append(q.e, x)
	i := len(q.e) - 1
	for i > 0 && q.e[i-1].less(x) {
		q.e[i] = q.e[i-1]
		i--
	}
	q.e[i] = x
}

func (q *sorted) pop() entry {
	if q.big != nil {
		return q.big.pop()
	}
	n := len(q.e) - 1
	x := q.e[n]
	q.e = q.e[:n]
	q.last = x.at
	return x
}

func (q *sorted) peek() entry {
	if q.big != nil {
		return q.big.peek()
	}
	return q.e[len(q.e)-1]
}
