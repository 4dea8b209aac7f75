package pow

import (
	"context"
	"crypto/ed25519"
	mrand "math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// BenchOptions set what Bench measures and for how long.
type BenchOptions struct {
	Duration time.Duration // per measurement; 0 means 500 ms
	Workers  int           // goroutines for the all-cores figures; 0 means runtime.GOMAXPROCS(0)
	Argon2   Argon2Params  // Argon2id's settings; zero means DefaultArgon2()
}

// HashRate is the speed of one hash function on 32-byte inputs (an id, or an
// id ⊕ nonce: what the puzzles hash).
type HashRate struct {
	Hash      Hash          `json:"hash"`
	Argon2    *Argon2Params `json:"argon2,omitempty"`
	PerCore   float64       `json:"hashes_per_s_per_core"`
	AllCores  float64       `json:"hashes_per_s_all_cores"`
	MsPerHash float64       `json:"ms_per_hash"` // on one core
}

// BenchResult is what Bench measured.
type BenchResult struct {
	Workers      int        `json:"workers"`
	Hashes       []HashRate `json:"hashes"`
	KeysPerCore  float64    `json:"keys_per_s_per_core"`  // Ed25519 key generations from a seed
	KeysAllCores float64    `json:"keys_per_s_all_cores"` // the same on every worker
}

// Bench measures every hash function and Ed25519 key generation, on one core
// and on all workers, each for about o.Duration.
func Bench(ctx context.Context, o BenchOptions) (BenchResult, error) {
	d := o.Duration
	if d <= 0 {
		d = 500 * time.Millisecond
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	a := o.Argon2
	if a == (Argon2Params{}) {
		a = DefaultArgon2()
	}
	if err := a.Validate(); err != nil {
		return BenchResult{}, err
	}
	res := BenchResult{Workers: workers}
	for _, h := range Hashes() {
		p := Params{Hash: h, Iterations: 1, Argon2: a}.normal()
		sum := p.sum()
		hashes := func(stop *atomic.Bool) uint64 {
			var buf [32]byte
			n := uint64(0)
			for {
				buf = sum(buf[:])
				if n++; stop.Load() {
					return n
				}
			}
		}
		r := HashRate{Hash: h}
		if h == Argon2id {
			r.Argon2 = &a
		}
		var err error
		if r.PerCore, err = rate(ctx, 1, d, hashes); err != nil {
			return res, err
		}
		if r.AllCores, err = rate(ctx, workers, d, hashes); err != nil {
			return res, err
		}
		r.MsPerHash = 1e3 / r.PerCore
		res.Hashes = append(res.Hashes, r)
	}
	keys := func(stop *atomic.Bool) uint64 {
		rng := mrand.NewChaCha8([32]byte{})
		var seed [ed25519.SeedSize]byte
		n := uint64(0)
		for {
			_, _ = rng.Read(seed[:])
			_ = ed25519.NewKeyFromSeed(seed[:])
			if n++; stop.Load() {
				return n
			}
		}
	}
	var err error
	if res.KeysPerCore, err = rate(ctx, 1, d, keys); err != nil {
		return res, err
	}
	res.KeysAllCores, err = rate(ctx, workers, d, keys)
	return res, err
}

// rate runs f on workers goroutines for about d (at least one operation
// each) and returns their operations per second in total.
func rate(ctx context.Context, workers int, d time.Duration, f func(stop *atomic.Bool) uint64) (float64, error) {
	var (
		stop  atomic.Bool
		total atomic.Uint64
		wg    sync.WaitGroup
	)
	start := time.Now()
	for range workers {
		wg.Go(func() { total.Add(f(&stop)) })
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	t.Stop()
	stop.Store(true)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return float64(total.Load()) / time.Since(start).Seconds(), nil
}
