package prefault

import (
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
