package pow

import (
	"context"
	"errors"
	"math"
	mrand "math/rand/v2"
	"sync"
	"testing"
	"time"
)

// ALGORITHMS.md: "Minting retries fresh key pairs until it holds, costing 2^b
// key generations on average"; the dynamic puzzle costs "2^c hashes". The
// attempts are geometric with p = 2^-b: mean 1/p, standard deviation
// √(1-p)/p. The samples are seeded, so the test is deterministic, and the
// tolerance is 5 standard errors, so a correct minter passes for any seed.
func TestMintMeanWork(t *testing.T) {
	tests := []struct {
		name    string
		p       Params
		samples int
		work    func(Stats) uint64
	}{
		{"static b=6", Params{Hash: SHA256, Iterations: 1, Bits: 6}, 300, func(s Stats) uint64 { return s.KeyPairs }},
		{"static b=8", Params{Hash: BLAKE2b256, Iterations: 1, Bits: 8}, 120, func(s Stats) uint64 { return s.KeyPairs }},
		{"dynamic c=6", Params{Hash: SHA256, Iterations: 1, DynBits: 6}, 2000, func(s Stats) uint64 { return s.Nonces }},
		{"dynamic c=8", Params{Hash: SHA3_256, Iterations: 1, DynBits: 8}, 1500, func(s Stats) uint64 { return s.Nonces }},
		{"dynamic c=10", Params{Hash: SHA256, Iterations: 1, DynBits: 10}, 1000, func(s Stats) uint64 { return s.Nonces }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bits := max(tc.p.Bits, tc.p.DynBits)
			prob := math.Ldexp(1, -bits)
			mean, sd := 1/prob, math.Sqrt(1-prob)/prob
			rng := mrand.NewChaCha8([32]byte{byte(bits), 7})
			x := make([]float64, tc.samples)
			for i := range x {
				k, st, err := Mint(context.Background(), tc.p, MintOptions{Workers: 1, Rand: rng})
				if err != nil {
					t.Fatal(err)
				}
				if err := k.Verify(); err != nil {
					t.Fatal(err)
				}
				x[i] = float64(tc.work(st))
			}
			got, gotSD := meanSD(x)
			se := sd / math.Sqrt(float64(tc.samples))
			if math.Abs(got-mean) > 5*se {
				t.Errorf("mean work %.1f, want 2^%d = %.0f ± %.1f (5 standard errors)", got, bits, mean, 5*se)
			}
			// The spread too: a minter that, say, counted only batches would
			// get the mean roughly right and the spread wrong. A geometric
			// law's kurtosis is about 9, so the sample sd's standard error is
			// about sd·√(8/4n).
			if tol := 5 * sd * math.Sqrt(2/float64(tc.samples)); math.Abs(gotSD-sd) > tol {
				t.Errorf("standard deviation of the work %.1f, want %.1f ± %.1f", gotSD, sd, tol)
			}
			t.Logf("%s: mean %.1f (want %.0f ± %.1f), sd %.1f (want %.1f)", tc.name, got, mean, 5*se, gotSD, sd)
		})
	}
}

func TestMintIsReproducible(t *testing.T) {
	p := Params{Hash: SHA256, Iterations: 1, Bits: 5, DynBits: 5}
	mint := func() Key {
		k, _, err := Mint(context.Background(), p, MintOptions{Workers: 1, Rand: mrand.NewChaCha8([32]byte{9})})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	a, b := mint(), mint()
	if a.Identity != b.Identity || string(a.Private) != string(b.Private) {
		t.Errorf("same seed, one worker, two identities: %v and %v", a.ID, b.ID)
	}
}

func TestMintOnManyWorkers(t *testing.T) {
	for _, w := range []int{2, 5} {
		p := Params{Hash: SHA256, Iterations: 1, Bits: 7, DynBits: 9}
		k, st, err := Mint(context.Background(), p, MintOptions{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Verify(); err != nil {
			t.Errorf("%d workers: %v", w, err)
		}
		if err := k.CheckKey(k.Private); err != nil {
			t.Errorf("%d workers: %v", w, err)
		}
		if st.KeyPairs == 0 || st.Nonces == 0 {
			t.Errorf("%d workers: stats %+v count no work", w, st)
		}
	}
}

func TestMintCancels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	progress := func(Progress) { once.Do(cancel) } // cancel at the first report: work is under way
	_, st, err := Mint(ctx, Params{Hash: SHA256, Iterations: 1, Bits: MaxBits},
		MintOptions{Progress: progress, ProgressEvery: time.Millisecond})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Mint after cancel: %v, want context.Canceled", err)
	}
	if st.KeyPairs == 0 {
		t.Error("a cancelled mint reports no key pairs tried")
	}

	ctx, cancel = context.WithCancel(context.Background())
	once = sync.Once{}
	progress = func(pr Progress) {
		if pr.Phase == "dynamic" {
			once.Do(cancel)
		}
	}
	_, st, err = Mint(ctx, Params{Hash: SHA256, Iterations: 1, Bits: 2, DynBits: MaxBits},
		MintOptions{Progress: progress, ProgressEvery: time.Millisecond})
	if !errors.Is(err, context.Canceled) || st.Nonces == 0 {
		t.Fatalf("Mint cancelled in the dynamic phase: %v after %d nonces, want context.Canceled after some", err, st.Nonces)
	}
}

func TestMintReportsProgress(t *testing.T) {
	p := Params{Hash: SHA256, Iterations: 1, Bits: 9, DynBits: 12}
	var reports []Progress
	_, st, err := Mint(context.Background(), p, MintOptions{
		Workers: 2, Progress: func(pr Progress) { reports = append(reports, pr) }, ProgressEvery: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]Progress{}
	for i, r := range reports {
		if i > 0 && r.Phase == reports[i-1].Phase && r.Attempts < reports[i-1].Attempts {
			t.Errorf("attempts went back from %d to %d", reports[i-1].Attempts, r.Attempts)
		}
		last[r.Phase] = r
	}
	s, d := last["static"], last["dynamic"]
	if !s.Done || s.Attempts != st.KeyPairs || s.Expected != 512 {
		t.Errorf("final static report %+v, want done, %d attempts, 512 expected", s, st.KeyPairs)
	}
	if !d.Done || d.Attempts != st.Nonces || d.Expected != 4096 {
		t.Errorf("final dynamic report %+v, want done, %d attempts, 4096 expected", d, st.Nonces)
	}
}

func TestMintRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	if _, _, err := Mint(ctx, Params{Hash: "sha1", Iterations: 1}, MintOptions{}); !errors.Is(err, ErrUnknownHash) {
		t.Errorf("sha1: %v", err)
	}
	if _, _, err := Mint(ctx, Params{Hash: SHA256, Iterations: 1, Bits: 65}, MintOptions{}); !errors.Is(err, ErrParams) {
		t.Errorf("65 bits: %v", err)
	}
	if err := DefaultParams().Validate(); err != nil {
		t.Errorf("default params: %v", err)
	}
	short := &shortReader{}
	if _, _, err := Mint(ctx, DefaultParams(), MintOptions{Rand: short}); err == nil {
		t.Error("Mint with a failing random source succeeded")
	}
}

type shortReader struct{}

func (*shortReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }
