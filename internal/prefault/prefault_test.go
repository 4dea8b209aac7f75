package prefault

import (
	"runtime/debug"
	"sync"
	"testing"
)

// Touch changes nothing an array holds, whatever its size, its element
// type and its alignment, in one piece or in halves: one touched and then
// written reads back what was written, and one touched after it was
// written keeps its contents.
func TestTouchKeepsContents(t *testing.T) {
	for _, n := range []int{0, 1, 1000, MinBytes/8 - 1, MinBytes / 8, 3 * MinBytes / 8, halvesFrom/8 + 513} {
		s := make([]uint64, n)
		Touch(s)
		for i := range s {
			s[i] = uint64(i)*2654435761 + 1
		}
		Touch(s) // again, written
		for i, v := range s {
			if v != uint64(i)*2654435761+1 {
				t.Fatalf("n = %d: element %d is %d after Touch", n, i, v)
			}
		}
	}
	type rank struct{ a, b, c, d, e uint64 }
	r := make([]rank, halvesFrom/40+3)
	Touch(r)
	for i := range r {
		r[i].e = uint64(i)
	}
	Touch(r)
	for i := range r {
		if r[i] != (rank{e: uint64(i)}) {
			t.Fatalf("rank %d is %+v", i, r[i])
		}
	}
	// An array that starts off a word boundary: Touch writes only the
	// words at page boundaries, which lie inside it.
	b := make([]byte, MinBytes+4099)
	for i := range b {
		b[i] = byte(i * 7)
	}
	odd := b[3 : len(b)-1]
	Touch(odd)
	for i := range b {
		if b[i] != byte(i*7) {
			t.Fatalf("byte %d is %d after Touch of b[3:%d]; want %d", i, b[i], len(b)-1, byte(i*7))
		}
	}
}

// Make returns a zeroed array of the length asked, large or small, and
// restores the collection percentage it found, also when called from
// several goroutines at once.
func TestMakeRestoresCollection(t *testing.T) {
	type machine struct {
		next int32
		rep  *int // a pointer: the collector scans such arrays
	}
	old := debug.SetGCPercent(137)
	defer debug.SetGCPercent(old)
	var wg sync.WaitGroup
	for _, n := range []int{10, 2 * MinBytes / 16, 3 * MinBytes / 16} {
		wg.Go(func() {
			s := Make[machine](n)
			if len(s) != n || s[0] != (machine{}) || s[n-1] != (machine{}) {
				t.Errorf("Make(%d): %d elements, first %v, last %v", n, len(s), s[0], s[n-1])
			}
		})
	}
	wg.Wait()
	if got := debug.SetGCPercent(137); got != 137 {
		t.Errorf("collection percentage %d after Make, want 137", got)
	}
}
