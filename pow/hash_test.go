package pow

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	mrand "math/rand/v2"
	"testing"
)

// Standard vectors pin the fast hashes; the Argon2id value pins this
// package's use of it (salt, output length), on which every argon2id identity
// file depends: changing it would invalidate them all.
func TestHashVectors(t *testing.T) {
	tests := []struct {
		hash Hash
		in   string
		want string
	}{
		{SHA256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{BLAKE2b256, "abc", "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"},
		{SHA3_256, "abc", "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"},
		{Argon2id, "abc", argon2Golden},
	}
	for _, tc := range tests {
		t.Run(string(tc.hash), func(t *testing.T) {
			p := Params{Hash: tc.hash, Iterations: 1, Argon2: testArgon2}
			got := p.sum()([]byte(tc.in))
			if h := hex.EncodeToString(got[:]); h != tc.want {
				t.Errorf("H(%q) = %s, want %s", tc.in, h, tc.want)
			}
		})
	}
}

// argon2Golden is from the reference implementation's command line:
// echo -n abc | argon2 electbench/pow/v1 -id -t 1 -k 64 -p 1 -l 32 -r
const argon2Golden = "84df185c7322a0471c14c971c2244b7d2ef6e8bdec08bfe130b25570bb77ea2e"

// ALGORITHMS.md: "optionally iterated k times (H(H(…H(x))))".
func TestIteratedHash(t *testing.T) {
	for _, h := range Hashes() {
		p := Params{Hash: h, Iterations: 1, Argon2: testArgon2}
		once := p.sum()
		want := once([]byte("x"))
		for range 2 {
			want = once(want[:])
		}
		p.Iterations = 3
		if got := p.sum()([]byte("x")); got != want {
			t.Errorf("%s with k=3 = %x, want H(H(H(x))) = %x", h, got, want)
		}
	}
}

func TestLeadingZeros(t *testing.T) {
	tests := []struct {
		set  int // index of the only bit set, from the most significant; -1 for none
		want int
	}{{-1, 256}, {0, 0}, {1, 1}, {7, 7}, {8, 8}, {63, 63}, {64, 64}, {100, 100}, {255, 255}}
	for _, tc := range tests {
		var h [32]byte
		if tc.set >= 0 {
			h[tc.set/8] = 0x80 >> (tc.set % 8)
		}
		if got := leadingZeros(&h); got != tc.want {
			t.Errorf("leadingZeros(bit %d set) = %d, want %d", tc.set, got, tc.want)
		}
	}
}

// The hot loops' one-word test agrees with leadingZeros for every b.
func TestZeroShiftAgrees(t *testing.T) {
	r := mrand.New(mrand.NewPCG(1, 2))
	for range 20000 {
		var h [32]byte
		binary.BigEndian.PutUint64(h[:], r.Uint64()>>r.IntN(65))
		binary.BigEndian.PutUint64(h[8:], r.Uint64())
		z := leadingZeros(&h)
		for b := 0; b <= MaxBits; b++ {
			fast := binary.BigEndian.Uint64(h[:8])>>zeroShift(b) == 0
			if fast != (z >= b) {
				t.Fatalf("hash %x, b=%d: one-word test says %v, leadingZeros %d", h, b, fast, z)
			}
		}
	}
}

func TestParseHash(t *testing.T) {
	for _, h := range Hashes() {
		if got, err := ParseHash(string(h)); err != nil || got != h {
			t.Errorf("ParseHash(%q) = %q, %v", h, got, err)
		}
	}
	for _, s := range []string{"sha1", "SHA256", "md5", "", "sha-256"} {
		if _, err := ParseHash(s); !errors.Is(err, ErrUnknownHash) {
			t.Errorf("ParseHash(%q): %v, want ErrUnknownHash", s, err)
		}
	}
}

func TestParamsValidate(t *testing.T) {
	ok := Params{Hash: SHA256, Iterations: 1, Bits: 8}
	argon := Params{Hash: Argon2id, Iterations: 1, Argon2: testArgon2}
	tests := []struct {
		name string
		p    Params
		want error
	}{
		{"default", DefaultParams(), nil},
		{"ok", ok, nil},
		{"argon2id", argon, nil},
		{"unknown hash", Params{Hash: "sha1", Iterations: 1}, ErrUnknownHash},
		{"zero iterations", Params{Hash: SHA256}, ErrParams},
		{"too many iterations", Params{Hash: SHA256, Iterations: MaxIterations + 1}, ErrParams},
		{"negative bits", Params{Hash: SHA256, Iterations: 1, Bits: -1}, ErrParams},
		{"too many bits", Params{Hash: SHA256, Iterations: 1, Bits: MaxBits + 1}, ErrParams},
		{"too many dynamic bits", Params{Hash: SHA256, Iterations: 1, DynBits: MaxBits + 1}, ErrParams},
		{"argon2 zero time", Params{Hash: Argon2id, Iterations: 1, Argon2: Argon2Params{MemoryKiB: 64, Threads: 1}}, ErrParams},
		{"argon2 zero threads", Params{Hash: Argon2id, Iterations: 1, Argon2: Argon2Params{Time: 1, MemoryKiB: 64}}, ErrParams},
		{"argon2 too little memory", Params{Hash: Argon2id, Iterations: 1, Argon2: Argon2Params{Time: 1, MemoryKiB: 15, Threads: 2}}, ErrParams},
		{"argon2 too much memory", Params{Hash: Argon2id, Iterations: 1, Argon2: Argon2Params{Time: 1, MemoryKiB: MaxArgon2Memory + 1, Threads: 1}}, ErrParams},
		{"argon2 ignored for sha256", Params{Hash: SHA256, Iterations: 1, Argon2: Argon2Params{Time: 0}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Validate() = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParamsString(t *testing.T) {
	seen := map[string]Params{}
	for _, p := range []Params{
		{Hash: SHA256, Iterations: 1, Bits: 8},
		{Hash: SHA256, Iterations: 2, Bits: 8},
		{Hash: SHA256, Iterations: 1, Bits: 8, DynBits: 1},
		{Hash: SHA3_256, Iterations: 1, Bits: 8},
		{Hash: Argon2id, Iterations: 1, Bits: 8, Argon2: testArgon2},
		{Hash: Argon2id, Iterations: 1, Bits: 8, Argon2: Argon2Params{Time: 2, MemoryKiB: 64, Threads: 1}},
	} {
		s := p.String()
		if q, dup := seen[s]; dup {
			t.Errorf("%+v and %+v both print as %q", p, q, s)
		}
		seen[s] = p
	}
	if got := (Params{Hash: SHA256, Iterations: 1, Bits: 16, DynBits: 4}).String(); got != "sha256-k1-b16-c4" {
		t.Errorf("String() = %q", got)
	}
}
