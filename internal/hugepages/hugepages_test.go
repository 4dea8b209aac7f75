package hugepages

import (
	"testing"
)

// whole finds exactly the huge pages an array covers entirely, never a
// byte outside it.
func TestWhole(t *testing.T) {
	const h = Size
	for _, c := range []struct {
		start, size, from, n uintptr
	}{
		{0, 4 * h, 0, 4 * h},         // aligned: all of it
		{h, 4*h + 5, 0, 4 * h},       // aligned, a tail short of a page
		{h + 1, 4 * h, h - 1, 3 * h}, // unaligned: the pages strictly inside
		{h - 8, 2*h + 16, 8, 2 * h},  // from the first boundary to the last
		{h + 1, h, 0, 0},             // within one page and the next: none whole
		{3*h - 1, h + 1, 1, h},       // ends on a boundary
		{5 * h, 0, 0, 0},             // empty
		{7*h + 100, h - 100, 0, 0},   // less than a page
		{2*h + 4096, 10 * h, h - 4096, 9 * h},
	} {
		from, n := whole(c.start, c.size)
		if from != c.from || n != c.n {
			t.Errorf("whole(%#x, %#x) = %#x, %#x; want %#x, %#x", c.start, c.size, from, n, c.from, c.n)
		}
		if n > 0 && (from+n > c.size || (c.start+from)%h != 0 || n%h != 0) {
			t.Errorf("whole(%#x, %#x): %#x bytes from %#x are not whole pages inside the array", c.start, c.size, n, from)
		}
	}
}

// Advice changes nothing an array holds, whatever its size and element
// type: one advised and then written reads back what was written, and an
// array advised after it was written keeps its contents.
func TestAdviseKeepsContents(t *testing.T) {
	for _, n := range []int{0, 1, 1000, MinBytes/8 - 1, MinBytes / 8, 3 * MinBytes / 8} {
		s := make([]uint64, n)
		Advise(s)
		for i := range s {
			s[i] = uint64(i)*2654435761 + 1
		}
		Advise(s) // again, written
		for i, v := range s {
			if v != uint64(i)*2654435761+1 {
				t.Fatalf("n = %d: element %d is %d after advice", n, i, v)
			}
		}
	}
	type rank struct{ a, b, c, d, e uint64 }
	r := make([]rank, MinBytes/40+3)
	Advise(r)
	for i := range r {
		r[i].e = uint64(i)
	}
	for i := range r {
		if r[i] != (rank{e: uint64(i)}) {
			t.Fatalf("rank %d is %+v", i, r[i])
		}
	}
}
