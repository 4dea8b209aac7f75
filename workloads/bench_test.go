package workloads

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkShuffle is the random arrangement's shuffle at ten million
// processes (IDs.Ranks), the largest pass of a huge ring's set-up; the
// loop as Rand.Shuffle makes it, one swap after another, is the baseline.
func BenchmarkShuffle(b *testing.B) {
	const n = 10_000_000
	b.Run("ahead", func(b *testing.B) {
		for range b.N {
			shuffle(n, 1, rand.New(rand.NewPCG(1, streamIDs)))
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/swap")
	})
	b.Run("one-by-one", func(b *testing.B) {
		for range b.N {
			perm := make([]uint32, n)
			for i := range perm {
				perm[i] = uint32(i)
			}
			src := rand.New(rand.NewPCG(1, streamIDs))
			for i := n - 1; i > 0; i-- {
				j := src.Uint64N(uint64(i + 1))
				perm[i], perm[j] = perm[j], perm[i]
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/swap")
	})
}
