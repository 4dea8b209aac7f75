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
	var b slab
	for range slabChunk + 3 {
		b.alloc()
	}
	b.release(2)
	chunks := b.chunks
	// The pool may hold slabs that earlier trials of this process left
	// (another test's, an earlier -count's), and hands out any of them
	// first; only a collection drops what it holds. So, collections off,
	// every slab it holds is taken: each comes back empty, ours among them.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	recycleSlab(&b)
	kept := false
	for got := takeSlab(); len(got.chunks) != 0; got = takeSlab() {
		if got.used != 0 || got.free != 0 {
			t.Fatalf("taken slab: %d chunks, %d used, %d free; want none used or free", len(got.chunks), got.used, got.free)
		}
		kept = kept || &got.chunks[0] == &chunks[0]
	}
	if !kept {
		t.Fatal("the recycled slab's chunks were not handed out again")
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
