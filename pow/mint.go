package pow

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/nodes"
)

// MintOptions say how Mint spends the machine.
type MintOptions struct {
	Workers       int            // goroutines searching; 0 means runtime.GOMAXPROCS(0)
	Rand          io.Reader      // seeds each worker's key stream (32 bytes each); nil means crypto/rand
	Progress      func(Progress) // called from Mint's goroutine every ProgressEvery and once at the end of each phase; nil for none
	ProgressEvery time.Duration  // 0 means one second
}

// Progress reports how far a mint has come.
type Progress struct {
	Phase    string        // "static" (key pairs tried) or "dynamic" (nonces tried)
	Attempts uint64        // tried so far in this phase, by all workers
	Expected float64       // mean number of attempts the phase needs: 2^b or 2^c
	Elapsed  time.Duration // since Mint began
	Done     bool          // the phase found its solution
}

// Stats are what a mint cost.
type Stats struct {
	KeyPairs uint64        // key pairs generated, by all workers
	Nonces   uint64        // dynamic-puzzle nonces tried, by all workers
	Elapsed  time.Duration // wall time
}

// Mint searches for a key pair whose id solves p's static puzzle, then for a
// nonce solving its dynamic puzzle, on every worker. The number of key pairs
// tried is geometric with mean 2^b (and the nonces with mean 2^c). It stops
// early with ctx's error when ctx ends.
//
// Keys come from ChaCha8 streams (a cryptographically strong generator)
// seeded from o.Rand, one per worker: with the default crypto/rand the keys
// are fit for real use; with a fixed reader and one worker the result is
// reproducible, which tests rely on.
func Mint(ctx context.Context, p Params, o MintOptions) (Key, Stats, error) {
	start := time.Now()
	if err := p.Validate(); err != nil {
		return Key{}, Stats{}, err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	src := o.Rand
	if src == nil {
		src = rand.Reader
	}
	seeds := make([][32]byte, workers)
	for i := range seeds {
		if _, err := io.ReadFull(src, seeds[i][:]); err != nil {
			return Key{}, Stats{}, fmt.Errorf("pow: seeding the key generator: %w", err)
		}
	}
	p = p.normal()
	sum := p.sum()
	keyBatch, nonceBatch := p.batches()
	keyPairs, _ := p.ExpectedWork()

	seed, tried, err := search(ctx, o, workers, "static", keyPairs, start,
		func(w int, r *phaseRun) ([32]byte, bool) {
			s := newKeySearch(p, sum, seeds[w])
			for !r.stop.Load() {
				for i := range keyBatch {
					if s.try() {
						r.attempts.Add(i + 1)
						r.stop.Store(true)
						return s.buf.seed, true
					}
				}
				r.attempts.Add(keyBatch)
			}
			return [32]byte{}, false
		})
	st := Stats{KeyPairs: tried}
	if err != nil {
		st.Elapsed = time.Since(start)
		return Key{}, st, fmt.Errorf("pow: minting %s: stopped after %d key pairs: %w", p, tried, err)
	}
	k := keyFromSeed(p, sum, seed)
	if p.DynBits > 0 {
		_, hashes := p.ExpectedWork()
		k.Nonce, st.Nonces, err = search(ctx, o, workers, "dynamic", hashes, start,
			func(w int, r *phaseRun) ([32]byte, bool) {
				s := newNonceSearch(p, sum, k.ID, uint64(w))
				for c := uint64(0); !r.stop.Load(); c += nonceBatch {
					if x, ok := s.run(c, nonceBatch); ok {
						r.attempts.Add(x - c + 1)
						r.stop.Store(true)
						return nonceOf(uint64(w), x), true
					}
					r.attempts.Add(nonceBatch)
				}
				return [32]byte{}, false
			})
		if err != nil {
			st.Elapsed = time.Since(start)
			return Key{}, st, fmt.Errorf("pow: minting %s: dynamic puzzle stopped after %d nonces: %w", p, st.Nonces, err)
		}
	}
	st.Elapsed = time.Since(start)
	return k, st, nil
}

// batches returns how many attempts a worker makes between looks at the stop
// flag and the shared counter: about a hundred microseconds of work with the
// fast hashes (a key pair costs ~20 µs, a hash ~0.1–0.5 µs, times k), so that
// stopping is prompt and the counter is not contended; one at a time for
// Argon2id, whose every hash takes milliseconds.
func (p Params) batches() (keys, nonces uint64) {
	if p.Hash == Argon2id {
		return 1, 1
	}
	k := uint64(p.Iterations)
	return max(1, 8/k), max(1, 4096/k)
}

// phaseRun is the state the workers of one search phase share.
type phaseRun struct {
	stop     atomic.Bool   // set by the finder, or on cancellation
	attempts atomic.Uint64 // added to in batches
}

// search runs find on workers goroutines until one returns a solution or ctx
// ends, reporting progress from the calling goroutine meanwhile. It returns
// the first solution received and the attempts made by all workers.
func search[T any](ctx context.Context, o MintOptions, workers int, phase string, expected float64,
	start time.Time, find func(w int, r *phaseRun) (T, bool)) (T, uint64, error) {
	var r phaseRun
	results := make(chan T, workers) // room for every worker: no send blocks
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			if v, ok := find(w, &r); ok {
				results <- v
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	var tick <-chan time.Time
	if o.Progress != nil {
		every := o.ProgressEvery
		if every <= 0 {
			every = time.Second
		}
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	report := func(finished bool) {
		if o.Progress != nil {
			o.Progress(Progress{Phase: phase, Attempts: r.attempts.Load(), Expected: expected,
				Elapsed: time.Since(start), Done: finished})
		}
	}
	cancelled := ctx.Done()
	for {
		select {
		case <-cancelled:
			r.stop.Store(true)
			cancelled = nil
		case <-tick:
			report(false)
		case <-done:
			select {
			case v := <-results:
				report(true)
				return v, r.attempts.Load(), nil
			default:
				var zero T
				return zero, r.attempts.Load(), ctx.Err()
			}
		}
	}
}

// keySearch tries key pairs drawn from its own ChaCha8 stream. It allocates
// its buffers once: the hot loop allocates nothing.
type keySearch struct {
	sum   sumFunc
	shift uint
	rng   *mrand.ChaCha8
	buf   *keyBuf
}

type keyBuf struct {
	seed [ed25519.SeedSize]byte
	pub  [ed25519.PublicKeySize]byte
	id   [32]byte
}

func newKeySearch(p Params, sum sumFunc, seed [32]byte) *keySearch {
	return &keySearch{sum: sum, shift: zeroShift(p.Bits), rng: mrand.NewChaCha8(seed), buf: new(keyBuf)}
}

// try generates one key pair and reports whether its id solves the static
// puzzle; the pair's seed and id are then in s.buf.
func (s *keySearch) try() bool {
	b := s.buf
	_, _ = s.rng.Read(b.seed[:]) // never fails
	priv := ed25519.NewKeyFromSeed(b.seed[:])
	// crypto/ed25519 lays a private key out as seed ‖ public key (RFC 8032);
	// slicing avoids the allocation of priv.Public(). A test pins the layout.
	copy(b.pub[:], priv[ed25519.SeedSize:])
	b.id = s.sum(b.pub[:])
	h := s.sum(b.id[:])
	return binary.BigEndian.Uint64(h[:8])>>s.shift == 0
}

// keyFromSeed rebuilds the minted key from its seed.
func keyFromSeed(p Params, sum sumFunc, seed [32]byte) Key {
	priv := ed25519.NewKeyFromSeed(seed[:])
	k := Key{Identity: Identity{Params: p}, Private: priv}
	copy(k.PublicKey[:], priv[ed25519.SeedSize:])
	k.ID = nodes.IDFromBytes(sum(k.PublicKey[:]))
	return k
}

// nonceSearch tries dynamic-puzzle nonces X = (w, 0, 0, c) for counters c:
// worker w owns the nonces whose first word is w, so workers never overlap,
// and only the last word of id ⊕ X changes from one try to the next.
type nonceSearch struct {
	sum   sumFunc
	shift uint
	buf   *[32]byte // id ⊕ X
	last  uint64    // id's last word
}

func newNonceSearch(p Params, sum sumFunc, id nodes.ID, w uint64) *nonceSearch {
	b := id.Bytes()
	binary.BigEndian.PutUint64(b[:8], id[0]^w)
	return &nonceSearch{sum: sum, shift: zeroShift(p.DynBits), buf: &b, last: id[3]}
}

// run tries the counters from, from+1, …, from+n-1 and returns the first that
// solves the dynamic puzzle.
func (s *nonceSearch) run(from, n uint64) (uint64, bool) {
	buf, sum, shift, last := s.buf, s.sum, s.shift, s.last
	for c := from; c != from+n; c++ {
		binary.BigEndian.PutUint64(buf[24:], last^c)
		h := sum(buf[:])
		if binary.BigEndian.Uint64(h[:8])>>shift == 0 {
			return c, true
		}
	}
	return 0, false
}

// nonceOf returns the nonce (w, 0, 0, c).
func nonceOf(w, c uint64) (x [32]byte) {
	binary.BigEndian.PutUint64(x[:8], w)
	binary.BigEndian.PutUint64(x[24:], c)
	return x
}
