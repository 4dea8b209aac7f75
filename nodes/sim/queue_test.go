package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/electbench/electbench/nodes"
)

// The radix heap must pop exactly what the 4-ary heap pops, for any
// sequence of pushes that never goes below the last time taken out — the
// simulator's use (a deliberately simple reference, as in etcd's quorum
// tests).
func TestRadixMatchesHeap(t *testing.T) {
	for seed := range uint64(200) {
		src := rand.New(rand.NewPCG(seed, 7))
		var ref heap4
		var r radix
		now, seq := int64(0), uint64(0)
		spread := int64(1) << src.IntN(40)
		for step := range 5000 {
			if ref.len() == 0 || src.IntN(3) > 0 {
				for range 1 + src.IntN(3) {
					seq++
					at := now
					if src.IntN(4) > 0 {
						at += src.Int64N(spread)
					}
					e := entry{at: at, ord: order(uint64(src.IntN(3)), seq), slot: int32(seq)}
					ref.push(e)
					r.push(e)
				}
				continue
			}
			if r.len() != ref.len() || r.peek() != ref.peek() {
				t.Fatalf("seed %d step %d: peek %+v, want %+v (len %d/%d)", seed, step, r.peek(), ref.peek(), r.len(), ref.len())
			}
			got, want := r.pop(), ref.pop()
			if got != want {
				t.Fatalf("seed %d step %d: pop %+v, want %+v", seed, step, got, want)
			}
			now = got.at
		}
	}
}

func TestRadixRefusesThePast(t *testing.T) {
	var r radix
	r.push(entry{at: 10})
	r.pop()
	defer func() {
		if recover() == nil {
			t.Fatal("an event before the current time was accepted")
		}
	}()
	r.push(entry{at: 9})
}

// The FIFO queue hands out deliveries in the order they were added, and
// the one popped last stays as it was while new ones are added (the event
// it holds is running and sending): through wrap-arounds and growth.
func TestFifoPoppedStaysValid(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	var q fifo[delivery]
	var want []int64 // the ats queued, in order
	next := int64(0)
	for step := range 20000 {
		if q.len() == 0 || src.IntN(2) == 0 {
			next++
			q.slot().at = next
			want = append(want, next)
			continue
		}
		d := q.pop()
		if d.at != want[0] {
			t.Fatalf("step %d: popped %d, want %d", step, d.at, want[0])
		}
		got := d.at
		for range src.IntN(4) {
			next++
			q.slot().at = next
			want = append(want, next)
		}
		if d.at != got {
			t.Fatalf("step %d: the popped delivery changed from %d to %d while others were added", step, got, d.at)
		}
		want = want[1:]
	}
}

// held is the entries of every block the queue holds, free ones included.
func (q *fifo[D]) held() int {
	n := 0
	seen := map[*fifoBlock[D]]bool{}
	for _, list := range []*fifoBlock[D]{q.head, q.free, q.done} {
		for b := list; b != nil && !seen[b]; b = b.next {
			seen[b] = true
			n += len(b.e)
		}
	}
	return n
}

// The FIFO queue holds what is pending, give or take a block or two, and
// reuses the blocks it emptied: a million-process ring with one message
// in flight allocates nothing once its first blocks are made, and a queue
// that fills to k entries holds less than k plus two blocks.
func TestFifoHoldsWhatIsPending(t *testing.T) {
	var q fifo[delivery]
	at := int64(0)
	step := func() {
		at++
		q.slot().at = at
		q.pop()
	}
	for range 10 * fifoBlockMax {
		step()
	}
	if a := testing.AllocsPerRun(10*fifoBlockMax, step); a != 0 {
		t.Errorf("one in flight: %v allocations a delivery, want none", a)
	}
	if h := q.held(); h > 3*fifoBlockMin {
		t.Errorf("one in flight: the queue holds %d entries", h)
	}
	// Below fifoBlockMax entries the blocks are the small ones the queue
	// starts with, 64 to 512 entries: less than one more block in all.
	for _, k := range []int{1, 63, 64, 65, 1000, 5000, 100_000} {
		var q fifo[delivery]
		next, first := int64(0), int64(0)
		for cycle := range 5 {
			for range k {
				q.slot().at = next
				next++
			}
			if h := q.held(); h >= k+3*fifoBlockMax {
				t.Errorf("%d pending (cycle %d): the queue holds %d entries", k, cycle, h)
			}
			for range k {
				if d := q.pop(); d.at != first {
					t.Fatalf("%d pending (cycle %d): popped %d, want %d", k, cycle, d.at, first)
				}
				first++
			}
		}
	}
}

// The cost of a delivery in the constant-latency FIFO queue with k
// pending, its message whole (a ring's) or packed (a complete graph's,
// packFifo): each operation takes the least delivery out and appends one
// T after it, as bully at N = 4,096 under 1 ms does about 25 million
// times with as many pending. Run: go test -run '^$' -bench Fifo
// -benchtime 2000000x ./nodes/sim
func BenchmarkFifo(b *testing.B) {
	msg := nodes.Message{Kind: 1, Rank: nodes.RankOf(7), Aux: nodes.RankOf(9), A: 3}
	for _, k := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("whole/%d", k), func(b *testing.B) {
			benchFifo(b, k, func(d *delivery, at int64, seq uint64) {
				d.at, d.ord, d.to, d.from = at, order(classDeliver, seq), int32(seq%4096), 0
				d.msg = msg
			}, func(d *delivery) int64 { return d.at })
		})
		b.Run(fmt.Sprintf("packed/%d", k), func(b *testing.B) {
			benchFifo(b, k, func(d *packedDelivery, at int64, seq uint64) {
				d.at, d.ord = at, order(classDeliver, seq)
				d.p = payload{a: msg.A, rank: 7, aux: 9, to: int32(seq % 4096), sub: uint16(msg.Kind), kind: evDeliver}
			}, func(d *packedDelivery) int64 { return d.at })
		})
	}
}

func benchFifo[D any](b *testing.B, k int, fill func(d *D, at int64, seq uint64), at func(*D) int64) {
	const t = int64(time.Millisecond)
	var q fifo[D]
	seq := uint64(0)
	for i := range k {
		seq++
		fill(q.slot(), int64(i)*t/int64(k), seq)
	}
	b.ResetTimer()
	for range b.N {
		d := q.pop()
		seq++
		fill(q.slot(), at(d)+t, seq)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
	b.ReportMetric(float64(unsafe.Sizeof(*new(D))), "B/pending")
}
