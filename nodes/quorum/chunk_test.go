package quorum

import (
	"sync"
	"testing"
)

// A chunk hands each caller a zero machine of its own, from its array
// while it lasts and made apart after (a restart), however many callers
// take at once.
func TestChunkHandsOutDistinctMachines(t *testing.T) {
	const n, extra = 5, 3
	c := newChunk[raft](n)
	got := make([]*raft, n+extra)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = c.take() })
	}
	wg.Wait()
	seen := map[*raft]bool{}
	inArray := 0
	for _, r := range got {
		if seen[r] {
			t.Fatalf("machine %p handed out twice", r)
		}
		seen[r] = true
		if r.term != 0 || r.raftTiming != nil {
			t.Fatalf("machine %p not zero: %+v", r, r)
		}
		for i := range c.all {
			if r == &c.all[i] {
				inArray++
			}
		}
	}
	if inArray != n {
		t.Errorf("%d machines from the array, want %d", inArray, n)
	}
}
