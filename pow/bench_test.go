package pow

import (
	"context"
	"crypto/ed25519"
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

// The speed benchmarks (the targets): the dynamic-puzzle search at
// ≥ 90% of the raw hash rate of the same function on 32 bytes, the
// static-puzzle search at ≥ 90% of the raw Ed25519 key-generation rate, and
// minting at ≥ 1.8× on 2 cores. Each pair alternates short chunks of the two
// loops it compares, timed by the thread's CPU clock so that other processes
// on a shared machine stay out of the ratio, and reports the ratio. b.N counts
// operations of each loop.
//
//	go test ./pow -run '^$' -bench . -benchtime 2s

var fastHashes = []Hash{SHA256, BLAKE2b256, SHA3_256}

func BenchmarkHash(b *testing.B) {
	for _, h := range Hashes() {
		b.Run(string(h), func(b *testing.B) {
			p := Params{Hash: h, Iterations: 1, Argon2: Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}}.normal()
			sum := p.sum()
			var buf [32]byte
			b.ReportAllocs()
			start := time.Now()
			for range b.N {
				buf = sum(buf[:])
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "hashes/s")
		})
	}
}

func BenchmarkDynamicSearch(b *testing.B) {
	const chunk = 1 << 12
	for _, h := range fastHashes {
		b.Run(string(h), func(b *testing.B) {
			p := Params{Hash: h, Iterations: 1, DynBits: MaxBits}
			sum := p.sum()
			ns := newNonceSearch(p, sum, nodes.IDFromUint64(12345), 0)
			buf := new([32]byte)
			var raw, search time.Duration
			now, release := benchClock()
			defer release()
			b.ReportAllocs()
			for i := 0; i < b.N; i += chunk {
				n := min(chunk, b.N-i)
				t := now()
				for range n {
					*buf = sum(buf[:])
				}
				raw += now() - t
				t = now()
				if _, ok := ns.run(uint64(i), uint64(n)); ok {
					b.Fatal("a 64-bit puzzle solved")
				}
				search += now() - t
			}
			rawRate := float64(b.N) / raw.Seconds()
			searchRate := float64(b.N) / search.Seconds()
			b.ReportMetric(rawRate, "raw-hashes/s")
			b.ReportMetric(searchRate, "search-hashes/s")
			b.ReportMetric(searchRate/rawRate, "search/raw")
		})
	}
}

func BenchmarkStaticSearch(b *testing.B) {
	const chunk = 64
	for _, h := range fastHashes {
		b.Run(string(h), func(b *testing.B) {
			p := Params{Hash: h, Iterations: 1, Bits: MaxBits}
			ks := newKeySearch(p, p.sum(), [32]byte{1})
			rng := mrand.NewChaCha8([32]byte{2})
			var seed [ed25519.SeedSize]byte
			var raw, search time.Duration
			now, release := benchClock()
			defer release()
			b.ReportAllocs()
			for i := 0; i < b.N; i += chunk {
				n := min(chunk, b.N-i)
				t := now()
				for range n {
					_, _ = rng.Read(seed[:])
					_ = ed25519.NewKeyFromSeed(seed[:])
				}
				raw += now() - t
				t = now()
				for range n {
					if ks.try() {
						b.Fatal("a 64-bit puzzle solved")
					}
				}
				search += now() - t
			}
			rawRate := float64(b.N) / raw.Seconds()
			searchRate := float64(b.N) / search.Seconds()
			b.ReportMetric(rawRate, "raw-keys/s")
			b.ReportMetric(searchRate, "search-keys/s")
			b.ReportMetric(searchRate/rawRate, "search/raw")
		})
	}
}

// BenchmarkMintScaling mints at b = 12 (4096 key pairs on average) with one
// worker and with two, alternately; b.N counts mints of each. "speedup" is
// the ratio of wall-clock key rates, which needs two idle cores to mean
// anything; "cpu-efficiency" is the ratio of key pairs per CPU-second (the
// process's), which other load leaves alone: 1 means the second worker wastes
// nothing on coordination.
func BenchmarkMintScaling(b *testing.B) {
	p := Params{Hash: SHA256, Iterations: 1, Bits: 12}
	run := func(workers int) (keys uint64, wall, cpu time.Duration) {
		c0 := cpuTime()
		_, st, err := Mint(context.Background(), p, MintOptions{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		return st.KeyPairs, st.Elapsed, cpuTime() - c0
	}
	var k1, k2 uint64
	var w1, w2, c1, c2 time.Duration
	for range b.N {
		k, w, c := run(1)
		k1, w1, c1 = k1+k, w1+w, c1+c
		k, w, c = run(2)
		k2, w2, c2 = k2+k, w2+w, c2+c
	}
	r1, r2 := float64(k1)/w1.Seconds(), float64(k2)/w2.Seconds()
	b.ReportMetric(r1, "keys/s-1worker")
	b.ReportMetric(r2, "keys/s-2workers")
	b.ReportMetric(r2/r1, "speedup")
	b.ReportMetric((float64(k2)/c2.Seconds())/(float64(k1)/c1.Seconds()), "cpu-efficiency")
}

func BenchmarkVerify(b *testing.B) {
	for _, h := range fastHashes {
		b.Run(string(h), func(b *testing.B) {
			k := mintForTest(b, Params{Hash: h, Iterations: 1, Bits: 4, DynBits: 4})
			b.ReportAllocs()
			start := time.Now()
			for range b.N {
				if err := k.Verify(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "verifies/s")
		})
	}
}

func BenchmarkEpochRank(b *testing.B) {
	id := nodes.IDFromUint64(7)
	b.ReportAllocs()
	start := time.Now()
	for i := range b.N {
		id = EpochRank(id, uint64(i))
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ranks/s")
}
