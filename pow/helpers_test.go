package pow

import (
	"context"
	"crypto/sha256"
	mrand "math/rand/v2"
	"testing"
)

// testArgon2 is Argon2id at its cheapest: tests exercise the code path, not
// the cost.
var testArgon2 = Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}

// mintForTest mints deterministically (one worker, seeded by p) or fails the
// test.
func mintForTest(tb testing.TB, p Params) Key {
	tb.Helper()
	seed := sha256.Sum256([]byte(p.String()))
	k, _, err := Mint(context.Background(), p, MintOptions{Workers: 1, Rand: mrand.NewChaCha8(seed)})
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// paramsFor returns small puzzle parameters for hash h.
func paramsFor(h Hash) Params {
	return Params{Hash: h, Iterations: 1, Bits: 4, Argon2: testArgon2}.normal()
}
