package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/bully"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/nodes/trial"
)

// The wheel pops exactly what the 4-ary heap pops, for any sequence of
// pushes that never goes below the last time taken out: keys within its
// window, past it (the overflow heap) and at the current time, made from
// a radix heap part-way and traded back for one later (sim.grow). Each
// event's payload comes back with it, in a slot of the slab (the heap's
// entries name theirs by the sequence number the payload holds).
func TestWheelMatchesHeap(t *testing.T) {
	for seed := range uint64(200) {
		src := rand.New(rand.NewPCG(seed, 9))
		bound := time.Duration(1 + src.Int64N(int64(5*time.Millisecond)))
		var ref heap4
		var r radix
		var b slab
		var q queue = &r
		now, seq := int64(0), uint64(0)
		spread := int64(1) << src.IntN(26) // up to 13 times the largest window
		trade, back := src.IntN(2000), 3000+src.IntN(2000)
		for step := range 6000 {
			switch step {
			case trade:
				w := newWheel(bound, r.last, &b, nil)
				r.each(w.push)
				q = w
			case back: // as sim.grow: from the time of the last event taken out
				r2 := &radix{last: now}
				q.(*wheel).empty(r2.push)
				q = r2
			}
			if ref.len() == 0 || src.IntN(3) > 0 {
				for range 1 + src.IntN(3) {
					seq++
					at := now
					if src.IntN(4) > 0 {
						at += src.Int64N(spread)
					}
					e := entry{at: at, ord: order(uint64(src.IntN(3)), seq), slot: int32(seq), to: int32(seq % 7)}
					ref.push(e)
					slot, p := b.alloc()
					*p = payload{a: int64(seq), to: e.to}
					e.slot = slot
					q.push(e)
				}
				continue
			}
			if got, want := q.peek(), ref.peek(); q.len() != ref.len() || got.at != want.at || got.ord != want.ord {
				t.Fatalf("seed %d step %d: peek %+v, want %+v (len %d/%d)", seed, step, got, want, q.len(), ref.len())
			}
			got, want := q.pop(), ref.pop()
			if p := b.at(got.slot); got.at != want.at || got.ord != want.ord || got.to != want.to || p.a != int64(want.slot) || p.to != want.to {
				t.Fatalf("seed %d step %d: pop %+v with payload %d, want %+v", seed, step, got, p.a, want)
			}
			b.release(got.slot)
			now = got.at
		}
	}
}

func TestWheelRefusesThePast(t *testing.T) {
	var b slab
	w := newWheel(time.Millisecond, 0, &b, nil)
	slot, _ := b.alloc()
	w.push(entry{at: 1 << 30, slot: slot})
	w.pop()
	defer func() {
		if recover() == nil {
			t.Fatal("an event before the current time was accepted")
		}
	}()
	w.push(entry{at: 1<<30 - 1<<w.shift})
}

// A trial that trades its radix heap for the wheel and back at every look
// (sim.grow) runs as one that keeps the radix heap: the same trace, byte
// for byte, and the same counts, with crashes, pauses, slow processes and
// link faults.
func TestWheelRunsAsRadix(t *testing.T) {
	const ms = time.Millisecond
	some := func(trial.View) []int { return []int{2, 5, 9} }
	faults := [][]trial.Fault{nil,
		{{Effect: trial.EffCrash, Targets: some, Start: trial.When{Trigger: trial.AtTime, At: 3 * ms}, For: 4 * ms}},
		{{Effect: trial.EffPause, Targets: some, Start: trial.When{Trigger: trial.AtTime, At: 2 * ms}, For: 20 * ms}},
		{{Link: trial.Delay{Latency: 30 * ms, Jitter: 5 * ms}, Links: every, Start: trial.When{Trigger: trial.AtTime, At: 1 * ms}, For: 50 * ms}},
		// A slow process's steps are marked served by their order, which
		// the wheel keeps, not by their slots, which it does not.
		{{Effect: trial.EffSlow, Service: 2 * ms, Targets: some, Start: trial.When{Trigger: trial.AtTime, At: 1 * ms}, For: 30 * ms}},
		{{Effect: trial.EffSlow, Service: 2 * ms, Targets: some, Start: trial.When{Trigger: trial.AtTime, At: 1 * ms}, For: 30 * ms},
			{Effect: trial.EffPause, Targets: some, Start: trial.When{Trigger: trial.AtTime, At: 4 * ms}, For: 10 * ms}},
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"bully", 24}, {"bully", 160}, {"lcr", 24}, {"hs", 24}} {
		name := c.name
		a, v, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, lat := range []trial.Latency{trial.Uniform{Lo: ms, Hi: 5 * ms}, trial.Exponential{MeanD: 2 * ms}} {
			for i, f := range faults {
				cfg := trial.Config{Algorithm: a, Variant: v, Ranks: nodes.RanksOf(ranks(c.n)), Initiators: []int{0, 7}, Latency: lat, Seed: 3, Faults: f}
				radixTrace, radixRes := tracedRun(t, cfg, 1<<62, 0)
				wheelTrace, wheelRes := tracedRun(t, cfg, 1, 1<<62)
				if !bytes.Equal(radixTrace, wheelTrace) || radixRes.Messages != wheelRes.Messages || radixRes.Events != wheelRes.Events {
					t.Errorf("%s N = %d, %v, faults %d: the wheel's run differs from the radix heap's (%d/%d messages, %d/%d trace bytes)",
						name, c.n, lat, i, wheelRes.Messages, radixRes.Messages, len(wheelTrace), len(radixTrace))
				}
			}
		}
	}
}

// A small trial's sorted queue (smallUntil) runs it as the radix heap
// does: the same trace, byte for byte, and the same counts, with a crash
// and a pause, and so does one that outgrows it at once (sortedMax).
func TestSortedRunsAsRadix(t *testing.T) {
	const ms = time.Millisecond
	some := func(trial.View) []int { return []int{1, 3} }
	faults := [][]trial.Fault{nil,
		{{Effect: trial.EffCrash, Targets: some, Start: trial.When{Trigger: trial.AtTime, At: 3 * ms}, For: 4 * ms}},
		{{Effect: trial.EffPause, Targets: some, Start: trial.When{Trigger: trial.AtTime, At: 2 * ms}, For: 20 * ms}},
	}
	for _, name := range []string{"raft", "bully", "lcr", "chang-roberts"} {
		a, v, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{5, 24} {
			for i, f := range faults {
				cfg := trial.Config{Algorithm: a, Variant: v, Ranks: nodes.RanksOf(ranks(n)), Initiators: []int{0, 2},
					Latency: trial.Uniform{Lo: ms, Hi: 5 * ms}, Seed: 5, Faults: f}
				radixTrace, radixRes := radixRun(t, cfg)
				for _, max := range []int{sortedMax, 1} {
					trace, res := sortedRun(t, cfg, max)
					if !bytes.Equal(trace, radixTrace) || res.Messages != radixRes.Messages || res.Events != radixRes.Events {
						t.Errorf("%s N = %d, faults %d, sortedMax %d: the sorted queue's run differs from the radix heap's (%d/%d messages, %d/%d trace bytes)",
							name, n, i, max, res.Messages, radixRes.Messages, len(trace), len(radixTrace))
					}
				}
			}
		}
	}
}

// radixRun is tracedRun on the radix heap whatever the trial's size.
func radixRun(t *testing.T, cfg trial.Config) ([]byte, *trial.Record) {
	t.Helper()
	defer func(u int) { smallUntil = u }(smallUntil)
	smallUntil = 0
	return tracedRun(t, cfg, 1<<62, 0)
}

// sortedRun is tracedRun on the sorted queue, moving to a radix heap past
// max entries.
func sortedRun(t *testing.T, cfg trial.Config, max int) ([]byte, *trial.Record) {
	t.Helper()
	defer func(m int) { sortedMax = m }(sortedMax)
	sortedMax = max
	return tracedRun(t, cfg, 1<<62, 0)
}

// A ring keeps its radix heap however big its pending set (sim.grow: the
// wheel misses the cache at ring event patterns), while a complete graph
// trades it for the wheel.
func TestRingKeepsRadix(t *testing.T) {
	defer func(f, u int) { wheelFrom, wheelUntil = f, u }(wheelFrom, wheelUntil)
	wheelFrom, wheelUntil = 1, 0 // trade at the first look, never back
	for _, c := range []struct {
		name  string
		wheel bool
	}{{"hs", false}, {"bully", true}} {
		a, v, err := nodes.Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := trial.Config{Algorithm: a, Variant: v, Ranks: nodes.RanksOf(ranks(24)), Initiators: trial.AllPositions(24),
			Latency: trial.Uniform{Lo: time.Millisecond, Hi: 5 * time.Millisecond}, Seed: 3}
		s, err := newSim(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s.run()
		s.closeMachines()
		if _, ok := s.heap.(*wheel); ok != c.wheel {
			t.Errorf("%s: on the wheel %v at the end, want %v", c.name, ok, c.wheel)
		}
	}
}

// tracedRun runs cfg, trading for the wheel at a pending set of from and
// back below until, and returns its trace and record.
func tracedRun(t *testing.T, cfg trial.Config, from, until int) ([]byte, *trial.Record) {
	t.Helper()
	defer func(f, u int) { wheelFrom, wheelUntil = f, u }(wheelFrom, wheelUntil)
	wheelFrom, wheelUntil = from, until
	var buf bytes.Buffer
	tr := trial.NewTrace(&buf)
	cfg.Events = tr
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Flush(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Fatal("empty trace")
	}
	return buf.Bytes(), res
}

// The cost of an event in each queue with k events pending, as in a trial
// under uniform(1ms,5ms) (issue 42: bully at N = 4,096 holds 25 million):
// each operation takes the least event out, reads its payload, schedules
// one 1 to 5 ms after it with a payload of its own, and frees the slot of
// the one taken out, as the simulator does (the heaps' payloads wait in
// the slab; the wheel's in its buckets). Run: go test -run '^$' -bench
// 'Queue$' -benchtime 2000000x ./nodes/sim
func BenchmarkQueue(b *testing.B) {
	const lo, hi = int64(time.Millisecond), int64(5 * time.Millisecond)
	kinds := []struct {
		name string
		make func(*slab) queue
	}{
		{"heap4", func(*slab) queue { return &heap4{} }},
		{"radix", func(*slab) queue { return &radix{} }},
		{"wheel", func(sl *slab) queue { return newWheel(time.Duration(hi), 0, sl, nil) }},
	}
	for _, k := range []int{1_000_000, 10_000_000} {
		for _, kind := range kinds {
			b.Run(fmt.Sprintf("%s/%d", kind.name, k), func(b *testing.B) {
				src := rand.New(rand.NewPCG(1, 2))
				var sl slab
				q := kind.make(&sl)
				seq := uint64(0)
				schedule := func(at int64) {
					seq++
					slot, p := sl.alloc()
					p.a, p.to, p.kind = int64(seq), int32(seq), evDeliver
					q.push(entry{at: at, ord: order(classDeliver, seq), slot: slot, to: p.to})
				}
				for range k {
					schedule(lo + src.Int64N(hi-lo))
				}
				var sum int64
				b.ResetTimer()
				for range b.N {
					e := q.pop()
					sum += sl.at(e.slot).a
					schedule(e.at + lo + src.Int64N(hi-lo))
					sl.release(e.slot)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
				if sum == 0 {
					b.Fatal("no payload read")
				}
			})
		}
	}
}

// The cost of an event at a ring's pattern, in each queue: k processes on
// a ring, each with one message pending (lcr with every process
// initiating), each event reading its process's state (a cache line of a
// table of k, in ring order shuffled as the ranks are) and sending on to
// the next process 1 to 5 ms later. Unlike BenchmarkQueue the queue's own
// lines compete for the cache with the processes', as in a trial, where
// a wheel of 2^16 buckets (a tail a 256 ns of the 4 ms ahead) cost lcr
// at N = 1,000,000 more than the radix heap's moves (sim.grow). Run: go test
// -run '^$' -bench QueueRing -benchtime 2000000x ./nodes/sim
func BenchmarkQueueRing(b *testing.B) {
	const lo, hi = int64(time.Millisecond), int64(5 * time.Millisecond)
	kinds := []struct {
		name string
		make func(*slab) queue
	}{
		{"radix", func(*slab) queue { return &radix{} }},
		{"wheel", func(sl *slab) queue { return newWheel(time.Duration(hi), 0, sl, nil) }},
	}
	for _, k := range []int{100_000, 1_000_000} {
		for _, kind := range kinds {
			b.Run(fmt.Sprintf("%s/%d", kind.name, k), func(b *testing.B) {
				src := rand.New(rand.NewPCG(1, 2))
				state := make([][8]int64, k) // a process's state: a cache line
				next := src.Perm(k)          // the ring's successor of a position, shuffled
				var sl slab
				q := kind.make(&sl)
				seq := uint64(0)
				schedule := func(at int64, to int32) {
					seq++
					slot, p := sl.alloc()
					p.to = to
					q.push(entry{at: at, ord: order(classDeliver, seq), slot: slot, to: to})
				}
				for p := range k {
					schedule(lo+src.Int64N(hi-lo), int32(p))
				}
				b.ResetTimer()
				for range b.N {
					e := q.pop()
					state[sl.at(e.slot).to][0]++
					schedule(e.at+lo+src.Int64N(hi-lo), int32(next[e.to]))
					sl.release(e.slot)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
			})
		}
	}
}
