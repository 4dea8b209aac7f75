package sim

import (
	"fmt"
	"math/bits"
	"slices"
	"time"
)

// wheel is a timing wheel, a calendar queue of fixed width (Brown, CACM
// 1988): a priority queue for keys that never fall below the last key
// taken out, with O(1) insert and removal when the keys inserted lie
// within a bounded span ahead of it, as deliveries do under a latency
// model with a delay bound D. Entries wait in buckets of 2^shift
// nanoseconds, a bucket per span of the wheel's window; the bucket of
// the current time is drained into a small heap by (at, ord) as it is
// reached, and what lies past the window (timers, messages a fault
// delays) waits in an overflow heap until the window reaches it.
//
// The radix heap moves each entry down its buckets about once per bit of
// the span its key lies in (22 times for 5 ms ahead): with 25 million
// events pending (bully at N = 4,096) that and the growth of its buckets
// took half of the trial's time. Here an entry is written once into a
// bucket and once into the heap of its time. Buckets are chains of
// fixed blocks from one pool that never moves, so what the wheel holds is
// what is pending, give or take a block a bucket.
//
// A bucket's entries carry their payloads (wheelEntry): the wheel takes a
// payload out of its slab slot as the event is pushed and gives it back in
// a slot as the event is popped, so the slab holds only the few events
// being handled, in the cache, and a payload is read and written in the
// order of the wheel's blocks. In the slab, where 25 million pending
// payloads lay in the order their slots were freed, an event's payload
// was a cache miss at the send that filled it and at the delivery that
// read it (bully at N = 4,096 under uniform(1ms,5ms)). Events at the
// current bucket's time and past the window (late, over) stay in their
// slots: they are few.
type wheel struct {
	shift uint  // a bucket spans 1<<shift nanoseconds
	cur   int64 // at>>shift of the bucket drained into now
	n     int
	// now holds the entries of bucket cur, sorted, from index ni; late
	// those pushed into it after it was drained (timers of zero, control
	// events), which are few.
	now  []wheelEntry
	ni   int
	late heap4
	over heap4 // entries past the window, at>>shift > cur+wheelMask
	// counts is drain's: entries by time, kept for the next bucket.
	counts []int32
	head   []int32
	tail   []int32 // per bucket: its first and last block, -1 for none
	// size is, per bucket, its entries, and so those of its last block
	// (the others are full): kept here rather than in the block, so that
	// an append reads nothing of a block it writes to (reading the tail
	// block's count missed the cache at every append of a big pending
	// set, 16% of bully's time at N = 4,096), and so that a drain knows
	// the size of now before it reads a block.
	size []int32
	full []uint64 // bit b set when bucket b is not empty
	pool wheelPool
	slab *slab              // the slots events are pushed and popped in
	warm func([]wheelEntry) // as radix.warm
}

// wheelEntry is an event in a bucket of the wheel: its key and its
// payload, whose to is the entry's (56 bytes).
type wheelEntry struct {
	at  int64
	ord uint64
	p   payload
}

func (a *wheelEntry) less(b *wheelEntry) bool {
	return a.at < b.at || (a.at == b.at && a.ord < b.ord)
}

// key is the entry's key, with no slot: only its time, order and
// process are meaningful.
func (a *wheelEntry) key() entry { return entry{at: a.at, ord: a.ord, slot: -1, to: a.p.to} }

// The wheel's window has wheelBuckets buckets; its span (wheelBuckets <<
// shift) covers twice the delay bound, so that deliveries never go to the
// overflow heap.
//
// Few buckets, each wide, keep the wheel's appends in the cache: a
// pending set spread over a bound of 5 ms fills about 600 of 2^11
// buckets, whose last blocks' cache lines (32 kB, an L1 data cache) stay
// in the cache between appends (2^11 against 2^12 buckets: bully N =
// 4,096 uniform(1ms,5ms) 7% less CPU over 9 interleaved runs; 2^13 no
// better than 2^12), where 2^16 buckets spread them over 16,000 and an
// append missed the cache at nearly every one of bully's 33.5 million
// messages at N = 4,096 (16% of the trial; its drains, a cache miss a
// block of 8 entries, 5.6%). A bucket's entries are sorted as it is
// reached (drain), which a wider bucket leaves no dearer an entry.
const (
	wheelBits    = 11
	wheelBuckets = 1 << wheelBits
	wheelMask    = wheelBuckets - 1
)

// wheelFrom is the pending set past which the simulator trades its radix
// heap for a wheel (sim.grow; a ring never does): below it the radix heap's buckets stay in
// the cache, and the wheel's bucket heads and blocks would cost a small
// trial more than its events. A variable only so that tests can make
// small trials trade at their start.
var wheelFrom = 1 << 18

// wheelUntil is the pending set below which the simulator trades the
// wheel back for a radix heap: a wheel that has emptied to a few events
// spends its time looking for the next bucket that holds one (lcr with a
// million initiators, whose messages die out, ran at 60% of its rate
// with the radix heap). A sixteenth of wheelFrom, so that a set hovering
// about one mark does not trade back and forth. A variable, as wheelFrom.
var wheelUntil = 1 << 14

// newWheel makes a wheel whose window covers twice the delay bound, its
// current time at `last`, taking the payloads of the events pushed from
// slots of b and giving them back in slots of b as they are popped.
func newWheel(bound time.Duration, last int64, b *slab, warm func([]wheelEntry)) *wheel {
	span := max(2*int64(bound), wheelBuckets)
	w := &wheel{
		shift: uint(bits.Len64(uint64(span-1))) - wheelBits,
		head:  make([]int32, wheelBuckets),
		tail:  make([]int32, wheelBuckets),
		size:  make([]int32, wheelBuckets),
		full:  make([]uint64, wheelBuckets/64),
		slab:  b,
		warm:  warm,
	}
	w.cur = last >> w.shift
	for i := range w.head {
		w.head[i], w.tail[i] = -1, -1
	}
	return w
}

func (w *wheel) len() int { return w.n }

// empty calls f with every entry the wheel holds, in no particular order,
// each with its payload in a slot of the slab, as pop gives it, and
// leaves the wheel empty, to be dropped: it hands the pending set to
// another queue (sim.grow).
func (w *wheel) empty(f func(entry)) {
	for i := range w.now[w.ni:] {
		f(w.slotted(&w.now[w.ni+i]))
	}
	for _, e := range w.late.e {
		f(e)
	}
	for _, e := range w.over.e {
		f(e)
	}
	for i, b := range w.head {
		for ; b >= 0; b = w.pool.at(b).next {
			blk := w.pool.at(b)
			for k := range w.blockLen(int32(i), b) {
				f(w.slotted(&blk.e[k]))
			}
		}
	}
	*w = wheel{}
}

// slotted puts x's payload into a slot of the slab and returns its entry.
func (w *wheel) slotted(x *wheelEntry) entry {
	slot, p := w.slab.alloc()
	*p = x.p
	return entry{at: x.at, ord: x.ord, slot: slot, to: x.p.to}
}

// blockLen is the entries of block b of bucket i.
func (w *wheel) blockLen(i, b int32) int {
	if b == w.tail[i] {
		if k := int(w.size[i]) % wheelBlockLen; k > 0 {
			return k
		}
	}
	return wheelBlockLen
}

func (w *wheel) push(e entry) {
	w.n++
	b := e.at >> w.shift
	switch {
	case b == w.cur:
		w.late.push(e)
	case b < w.cur:
		panic(fmt.Sprintf("sim: event at %d scheduled before the current time %d", e.at, w.cur<<w.shift))
	case b-w.cur <= wheelMask:
		w.append(int32(b&wheelMask), e)
	default:
		w.over.push(e)
	}
}

// append adds e at the end of bucket i, with its payload, and frees its
// slot.
func (w *wheel) append(i int32, e entry) {
	t, c := w.tail[i], w.size[i]
	k := c % wheelBlockLen
	if k == 0 { // empty, or its last block full
		nb := w.pool.alloc()
		if c == 0 {
			w.head[i] = nb
			w.full[i>>6] |= 1 << (i & 63)
		} else {
			w.pool.at(t).next = nb
		}
		w.tail[i], t = nb, nb
	}
	x := &w.pool.at(t).e[k]
	x.at, x.ord, x.p = e.at, e.ord, *w.slab.at(e.slot)
	w.slab.release(e.slot)
	w.size[i] = c + 1
}

// refill moves the entries of the next bucket into now when it is empty,
// and the overflow entries the window has reached into their buckets.
func (w *wheel) refill() {
	for w.ni == len(w.now) && w.late.len() == 0 {
		b, ok := w.next()
		if w.over.len() > 0 {
			if ob := w.over.peek().at >> w.shift; !ok || ob < b {
				b, ok = ob, true
			}
		}
		if !ok {
			panic("sim: refill of an empty wheel")
		}
		w.cur = b
		w.drain(int32(b & wheelMask))
		for w.over.len() > 0 && w.over.peek().at>>w.shift-w.cur <= wheelMask {
			e := w.over.pop()
			w.n-- // push counts it again
			w.push(e)
		}
	}
}

// next finds the first bucket after cur that is not empty, as a time
// index (at>>shift).
func (w *wheel) next() (int64, bool) {
	start := int32((w.cur + 1) & wheelMask)
	wi := start >> 6
	word := w.full[wi] &^ (1<<(start&63) - 1)
	for k := 0; k <= len(w.full); k++ {
		if word != 0 {
			i := wi<<6 | int32(bits.TrailingZeros64(word))
			return w.cur + 1 + int64((i-start)&wheelMask), true
		}
		wi = (wi + 1) % int32(len(w.full))
		word = w.full[wi]
		if k == len(w.full)-1 {
			word &= 1<<(start&63) - 1 // back at the start's word: its bits before start
		}
	}
	return 0, false
}

// drain moves the entries of bucket i into now, sorted, and frees its
// blocks. A bucket's times lie within 2^shift nanoseconds: when that is
// not many more than its entries, it counts them out by time straight
// from the blocks into now (bully at N = 4,096: 25,000 entries over
// 4,096 ns; a comparison sort took a fifth of the trial, and a copy
// into a buffer to count them out of, 56 bytes an entry, doubled what
// the sort held), then orders the entries of each time by ord with an
// insertion sort, which costs little since they come mostly in push
// order, which is ord's sequence. It counts out buckets of as few as a
// sixteenth of their span's nanoseconds: a comparison sort moves 56
// bytes at each swap (bully at N = 1,024 under uniform(1ms,5ms): 1,500
// entries over 4,096 ns, 1.06-1.12 CPU-s a trial sorted, 0.81-0.83
// counted).
func (w *wheel) drain(i int32) {
	n := int(w.size[i])
	w.now, w.ni = slices.Grow(w.now[:0], n)[:n], 0
	if width := 1 << w.shift; width > 16*n {
		k := 0
		for b := w.head[i]; b >= 0; {
			blk := w.pool.at(b)
			nb := blk.next
			k += copy(w.now[k:], blk.e[:w.blockLen(i, b)])
			w.pool.release(b)
			b = nb
		}
		slices.SortFunc(w.now, func(a, b wheelEntry) int {
			if a.less(&b) {
				return -1
			}
			return 1 // keys are unique: (at, ord) never ties
		})
	} else {
		w.countOut(i, width)
	}
	w.head[i], w.tail[i], w.size[i] = -1, -1, 0
	w.full[i>>6] &^= 1 << (i & 63)
	w.warmFrom(0)
	w.warmFrom(warmAhead) // pop warms from 2·warmAhead on
}

// countOut is drain's counting sort of bucket i, whose times span width
// nanoseconds, into now, which holds its size; it frees the bucket's
// blocks.
func (w *wheel) countOut(i int32, width int) {
	base := w.cur << w.shift
	w.counts = slices.Grow(w.counts[:0], width+1)[:width+1]
	clear(w.counts)
	for b := w.head[i]; b >= 0; b = w.pool.at(b).next {
		blk := w.pool.at(b)
		for k := range w.blockLen(i, b) {
			w.counts[blk.e[k].at-base+1]++
		}
	}
	for t := 1; t <= width; t++ {
		w.counts[t] += w.counts[t-1]
	}
	for b := w.head[i]; b >= 0; {
		blk := w.pool.at(b)
		nb := blk.next
		for k := range w.blockLen(i, b) {
			x := &blk.e[k]
			t := x.at - base
			w.now[w.counts[t]] = *x
			w.counts[t]++
		}
		w.pool.release(b)
		b = nb
	}
	for i := 1; i < len(w.now); i++ {
		for j := i; j > 0 && w.now[j].less(&w.now[j-1]); j-- {
			w.now[j], w.now[j-1] = w.now[j-1], w.now[j]
		}
	}
}

// warmFrom shows warm the warmAhead entries of now from index i: the
// entries are taken in order, so it is called again each warmAhead pops,
// a batch ahead of them.
func (w *wheel) warmFrom(i int) {
	if w.warm != nil && i < len(w.now) {
		w.warm(w.now[i:min(i+warmAhead, len(w.now))])
	}
}

// peek is the least entry's key: its slot is none when it is in a
// bucket (wheelEntry.key).
func (w *wheel) peek() entry {
	w.refill()
	if w.lateFirst() {
		return w.late.peek()
	}
	return w.now[w.ni].key()
}

func (w *wheel) pop() entry {
	w.refill()
	w.n--
	if w.lateFirst() {
		return w.late.pop()
	}
	e := w.slotted(&w.now[w.ni])
	w.ni++
	if w.ni%warmAhead == 0 {
		w.warmFrom(w.ni + warmAhead)
	}
	return e
}

// lateFirst reports whether the least entry is late's rather than now's.
func (w *wheel) lateFirst() bool {
	if w.late.len() == 0 {
		return false
	}
	if w.ni == len(w.now) {
		return true
	}
	l, x := w.late.peek(), &w.now[w.ni]
	return l.at < x.at || (l.at == x.at && l.ord < x.ord)
}

// wheelBlockLen is the entries of a block of a bucket: 1,800 bytes. A
// drain follows a bucket's chain of blocks one miss after another, a
// block of 32 entries at each (bully at N = 4,096: 50,000 entries a
// bucket), and a bucket's last block, part-filled, costs at most 3.7 MB
// over the 2^11 buckets.
const wheelBlockLen = 32

// wheelBlock is a block of a bucket; its entries are wheelBlockLen, or the
// bucket's size modulo wheelBlockLen for its last block.
type wheelBlock struct {
	e    [wheelBlockLen]wheelEntry
	next int32 // the next block of the bucket, -1 for none
}

// wheelPool holds the wheel's blocks by number, in chunks that never move
// (as slab does), and reuses freed blocks last-freed-first.
type wheelPool struct {
	chunks [][]wheelBlock
	used   int32
	free   []int32
}

const wheelChunkBits = 10

func (p *wheelPool) alloc() int32 {
	var b int32
	if k := len(p.free); k > 0 {
		b = p.free[k-1]
		p.free = p.free[:k-1]
	} else {
		b = p.used
		if int(b>>wheelChunkBits) == len(p.chunks) {
			p.chunks = append(p.chunks, make([]wheelBlock, 1<<wheelChunkBits))
		}
		p.used++
	}
	p.at(b).next = -1
	return b
}

func (p *wheelPool) at(b int32) *wheelBlock {
	return &p.chunks[b>>wheelChunkBits][b&(1<<wheelChunkBits-1)]
}

func (p *wheelPool) release(b int32) { p.free = append(p.free, b) }
