package check

import (
	"math/rand/v2"
	"testing"
)

// A grantSet counts what the map it replaced counted: each grant once,
// duplicates and all, while its grants are compared (up to grantScan) and
// once they are in its map, for receivers and terms with and without
// grants and voters outside the processes.
func TestGrantSetCountsAsTheMap(t *testing.T) {
	for _, grants := range []int{0, 1, 12, grantScan, grantScan + 1, 200} {
		r := rand.New(rand.NewPCG(uint64(grants), 7))
		w := &quorumWatch{}
		w.grants.list = w.grantRoom[:0]
		m := map[grant]bool{}
		const n = 7
		for range grants {
			k := grant{int64(r.IntN(n)), int64(r.IntN(4)), int64(r.IntN(n + 2))} // voters n, n+1: none of the n
			w.grants.add(k)
			m[k] = true
		}
		if big := len(m) > grantScan; (w.grants.set != nil) != big {
			t.Errorf("%d grants, %d distinct: map made %v, want %v", grants, len(m), w.grants.set != nil, big)
		}
		for p := range n {
			for term := range int64(5) {
				want := 0
				for v := range n {
					if m[grant{int64(p), term, int64(v)}] {
						want++
					}
				}
				if got := w.votes(p, term, n); got != want {
					t.Errorf("%d grants: votes(%d, %d) = %d, want %d", grants, p, term, got, want)
				}
			}
		}
	}
}
