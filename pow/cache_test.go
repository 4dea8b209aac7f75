package pow

import (
	"bytes"
	"context"
	"errors"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

var cacheParams = Params{Hash: SHA256, Iterations: 1, Bits: 5, DynBits: 3}

func cachePath(dir string, p Params, seed uint64) string {
	return filepath.Join(dir, p.String(), "seed-"+strconv.FormatUint(seed, 10)+".txt")
}

func identities(t *testing.T, p Params, n int, o CacheOptions) []Identity {
	t.Helper()
	ids, err := Identities(context.Background(), p, n, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != n {
		t.Fatalf("Identities returned %d, want %d", len(ids), n)
	}
	for i := range ids {
		if err := ids[i].Verify(); err != nil {
			t.Fatalf("identity %d: %v", i, err)
		}
		if ids[i].Params != p.normal() {
			t.Fatalf("identity %d has params %v, want %v", i, ids[i].Params, p)
		}
	}
	return ids
}

func TestIdentitiesAreDeterministic(t *testing.T) {
	a := identities(t, cacheParams, 6, CacheOptions{Dir: t.TempDir(), Seed: 1, Workers: 1})
	b := identities(t, cacheParams, 6, CacheOptions{Dir: t.TempDir(), Seed: 1, Workers: 3})
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("identity %d differs between one worker and three", i)
		}
	}
	c := identities(t, cacheParams, 6, CacheOptions{Dir: t.TempDir(), Seed: 2})
	if c[0] == a[0] {
		t.Error("seeds 1 and 2 give the same first identity")
	}
	seen := map[[32]byte]bool{}
	for _, id := range a {
		if seen[id.PublicKey] {
			t.Fatal("one key twice in a set")
		}
		seen[id.PublicKey] = true
	}
}

func TestIdentitiesGrowAndReuseTheCache(t *testing.T) {
	dir := t.TempDir()
	o := CacheOptions{Dir: dir, Seed: 5}
	small := identities(t, cacheParams, 4, o)
	big := identities(t, cacheParams, 9, o)
	for i := range small {
		if small[i] != big[i] {
			t.Fatalf("identity %d changed when the set grew", i)
		}
	}
	// Replace the cache with other valid identities: Identities must return
	// them, which it can only do by reading the cache rather than minting.
	var planted []Identity
	for i := range 9 {
		k, _, err := Mint(context.Background(), cacheParams, MintOptions{Workers: 1, Rand: mrand.NewChaCha8([32]byte{byte(i)})})
		if err != nil {
			t.Fatal(err)
		}
		planted = append(planted, k.Identity)
	}
	path := cachePath(dir, cacheParams, 5)
	if err := os.WriteFile(path, encodeCache(cacheParams, 5, planted), 0o644); err != nil {
		t.Fatal(err)
	}
	got := identities(t, cacheParams, 7, o)
	for i := range got {
		if got[i] != planted[i] {
			t.Fatalf("identity %d was not read from the cache", i)
		}
	}
}

// The issue: "safe against a corrupt cache file: re-verify on load".
func TestIdentitiesRepairACorruptCache(t *testing.T) {
	want := identities(t, cacheParams, 8, CacheOptions{Dir: t.TempDir(), Seed: 3})
	good := encodeCache(cacheParams, 3, want)
	lines := bytes.SplitAfter(good, []byte("\n"))
	forged := bytes.Clone(good)
	// Line 4 (identity 2): swap its key for identity 3's, keeping the id.
	l2, l3 := lines[3], lines[4]
	bad2 := append(bytes.Clone(l2[:65]), l3[65:65+64]...)
	bad2 = append(bad2, l2[65+64:]...)
	forged = bytes.Replace(forged, l2, bad2, 1)

	tests := map[string][]byte{
		"garbage":          []byte("not a cache\x00\xff"),
		"empty":            nil,
		"truncated":        good[:len(good)/2],
		"one bit flipped":  flip(good, len(good)/2),
		"key swapped":      forged,
		"header of a set":  bytes.Replace(good, []byte("seed"), []byte("sead"), 1),
		"other header":     append([]byte("electbench-pow-cache 1 sha256-k1-b5-c3 4\n"), good[bytes.IndexByte(good, '\n')+1:]...),
		"nonce line short": bytes.Replace(good, lines[2], lines[2][:100], 1),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := cachePath(dir, cacheParams, 3)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got := identities(t, cacheParams, 8, CacheOptions{Dir: dir, Seed: 3})
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("identity %d differs from a clean mint", i)
				}
			}
			repaired, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(repaired, good) {
				t.Error("the cache file was not repaired")
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 1
	return c
}

func TestIdentitiesConcurrentCallers(t *testing.T) {
	dir := t.TempDir()
	const callers = 6
	results := make([][]Identity, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			results[c], errs[c] = Identities(context.Background(), cacheParams, 5+c%3, CacheOptions{Dir: dir, Seed: 8})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	final := identities(t, cacheParams, 7, CacheOptions{Dir: dir, Seed: 8})
	for c := range callers {
		for i := range results[c] {
			if results[c][i] != final[i] {
				t.Fatalf("caller %d's identity %d is not in the final set", c, i)
			}
		}
	}
}

func TestIdentitiesRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Identities(ctx, Params{Hash: "md5", Iterations: 1}, 1, CacheOptions{Dir: dir}); !errors.Is(err, ErrUnknownHash) {
		t.Errorf("md5: %v", err)
	}
	if _, err := Identities(ctx, cacheParams, -1, CacheOptions{Dir: dir}); !errors.Is(err, ErrParams) {
		t.Errorf("n = -1: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Identities(cancelled, cacheParams, 3, CacheOptions{Dir: dir}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// A cache root that is a file cannot hold the cache.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Identities(ctx, cacheParams, 1, CacheOptions{Dir: file}); err == nil {
		t.Error("a cache under a regular file succeeded")
	}
	if ids, err := Identities(ctx, cacheParams, 0, CacheOptions{Dir: dir}); err != nil || len(ids) != 0 {
		t.Errorf("n = 0: %v, %v", ids, err)
	}
}

func TestIdentitiesProgress(t *testing.T) {
	var calls []int
	identities(t, cacheParams, 5, CacheOptions{Dir: t.TempDir(), Progress: func(done, want int) {
		if want != 5 {
			t.Errorf("progress wants %d, not 5", want)
		}
		calls = append(calls, done)
	}})
	if len(calls) != 5 || calls[len(calls)-1] != 5 {
		t.Errorf("progress calls %v, want 1..5", calls)
	}
}
