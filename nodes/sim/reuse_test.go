package sim

import (
	"runtime/debug"
	"testing"
)

// A recycled slab comes back empty with its chunks (reuse.go), and a
// trial run on a slab another trial left dirty runs as on a fresh one:
// the same trace, byte for byte. The pool may drop what it holds, so the
// trial runs after a dirtying trial several times.
func TestRecycledSlab(t *testing.T) {
	// The pool may hold slabs that earlier trials of this process left
	// (another test's, an earlier -count's), and hands out any of them
	// first; only a collection drops what it holds. So, collections off,
	// every slab it holds is taken: each comes back empty, ours among them.
	// A pool may also lose what it is given: under the race detector Put
	// drops one item in four, and an item put on one processor's private
	// slot is not taken from another. So the round is tried again, up to
	// 64 times (a chance of 4^-64 for the detector alone); a pool that
	// never hands a slab back fails it.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	kept := false
	for round := 0; round < 64 && !kept; round++ {
		var b slab
		for range slabChunk + 3 {
			b.alloc()
		}
		b.release(2)
		chunks := b.chunks
		recycleSlab(&b)
		for got := takeSlab(); len(got.chunks) != 0; got = takeSlab() {
			if got.used != 0 || got.free != 0 {
				t.Fatalf("taken slab: %d chunks, %d used, %d free; want none used or free", len(got.chunks), got.used, got.free)
			}
			kept = kept || &got.chunks[0] == &chunks[0]
		}
	}
	if !kept {
		t.Fatal("the recycled slab's chunks were not handed out again in 64 rounds")
	}
	var big slab
	for range reuseChunks*slabChunk + 1 {
		big.alloc()
	}
	recycleSlab(&big)
	for range 4 {
		if s := takeSlab(); len(s.chunks) > reuseChunks {
			t.Fatalf("a slab of %d chunks was kept, at most %d may be", len(s.chunks), reuseChunks)
		}
	}
	want := traceHash(t, 3, "uniform(1ms,5ms)")
	for seed := uint64(10); seed < 14; seed++ {
		traceHash(t, seed, "exponential(2ms)") // leaves its slab, payloads and all, to the pool
		if traceHash(t, 3, "uniform(1ms,5ms)") != want {
			t.Fatalf("seed 3 after seed %d: the trace differs from the first run's", seed)
		}
	}
}

// A trial's kept arrays (kept) serve the next trial of its worker empty: a
// process that saved nothing in this trial loads nothing, whatever the
// last trial saved in the same array, and the timeline's actions of the
// last trial are gone.
func TestKeptArraysComeBackEmpty(t *testing.T) {
	sp := &spare{}
	first := &sim{spare: sp, n: 3}
	first.env.s = first
	first.enter(1).SaveStable([]byte{1, 2, 3})
	first.leave()
	first.enter(2).AppendStable([]byte{4})
	first.leave()
	first.actions = append(first.actions, func() {})
	first.rands = reuse(sp.kept.rands, 3)
	sp.kept.keep(first)

	next := &sim{spare: sp, n: 3}
	next.env.s = next
	for p := range int32(3) {
		if b := next.enter(p).LoadStable(); b != nil {
			t.Fatalf("process %d of the next trial loads %v before any save; want nil", p, b)
		}
		next.leave()
	}
	next.enter(1).AppendStable([]byte{9})
	next.leave()
	if b := next.enter(1).LoadStable(); len(b) != 1 || b[0] != 9 {
		t.Fatalf("process 1 loads %v after appending [9] to nothing; want [9]", b)
	}
	next.leave()
	if &next.stable[0] != &first.stable[0] {
		t.Fatal("the next trial of 3 processes made its stable arrays afresh; want the kept ones")
	}
	if len(sp.kept.actions) != 0 || cap(sp.kept.actions) == 0 {
		t.Fatalf("kept actions: %d of %d; want the array kept, empty", len(sp.kept.actions), cap(sp.kept.actions))
	}
	if got := sp.kept.actions[:1][0]; got != nil {
		t.Fatal("a kept action still holds the last trial's closure")
	}
	other := &sim{spare: sp, n: 4}
	other.env.s = other
	other.enter(3).SaveStable([]byte{5})
	other.leave()
	if len(other.stable) != 4 {
		t.Fatalf("a trial of 4 processes after one of 3 has %d stable arrays; want 4", len(other.stable))
	}
}
