package pow

import (
	"crypto/sha256"
	"crypto/sha3"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/blake2b"
)

// Hash names the hash function H used for ids and puzzles. Every one gives
// 256 bits. SHA-1 is never offered: its collisions are practical.
type Hash string

// The hash functions. The fast three cost well under a microsecond on 32
// bytes; Argon2id is memory-hard and costs what its Argon2Params say, for the
// minter and — deliberately — for every verifier too.
const (
	SHA256     Hash = "sha256"      // FIPS 180-4 (crypto/sha256)
	BLAKE2b256 Hash = "blake2b-256" // RFC 7693 (golang.org/x/crypto/blake2b)
	SHA3_256   Hash = "sha3-256"    // FIPS 202 (crypto/sha3)
	Argon2id   Hash = "argon2id"    // RFC 9106, 32-byte output (golang.org/x/crypto/argon2)
)

// Hashes returns every hash function, fastest first.
func Hashes() []Hash { return []Hash{SHA256, BLAKE2b256, SHA3_256, Argon2id} }

// ParseHash returns the hash function named s.
func ParseHash(s string) (Hash, error) {
	for _, h := range Hashes() {
		if string(h) == s {
			return h, nil
		}
	}
	names := make([]string, 0, 4)
	for _, h := range Hashes() {
		names = append(names, string(h))
	}
	return "", fmt.Errorf("%w %q (want one of %s)", ErrUnknownHash, s, strings.Join(names, ", "))
}

// Argon2Params are the cost settings of Argon2id. All three are part of the
// function: changing any of them changes every hash.
type Argon2Params struct {
	Time      uint32 `json:"time"`       // passes over the memory, ≥ 1
	MemoryKiB uint32 `json:"memory_kib"` // memory filled per hash, KiB, ≥ 8 × Threads
	Threads   uint8  `json:"threads"`    // lanes (and goroutines) per hash, ≥ 1
}

// Limits on parameters. They keep a hostile file from asking a verifier for
// unbounded work or memory before any Policy is consulted.
const (
	MaxBits         = 64      // most leading zero bits of either puzzle
	MaxIterations   = 1 << 20 // most iterations k of H
	MaxArgon2Time   = 1 << 10 // most Argon2id passes
	MaxArgon2Memory = 4 << 20 // most Argon2id memory, KiB (4 GiB)
)

// DefaultArgon2 returns one pass over 64 MiB on one lane: one lane because
// minting already runs one hash per core.
func DefaultArgon2() Argon2Params { return Argon2Params{Time: 1, MemoryKiB: 64 << 10, Threads: 1} }

// Validate reports settings Argon2id cannot run with or this package refuses.
func (a Argon2Params) Validate() error {
	switch {
	case a.Time < 1 || a.Time > MaxArgon2Time:
		return fmt.Errorf("%w: argon2 time %d outside 1..%d", ErrParams, a.Time, MaxArgon2Time)
	case a.Threads < 1:
		return fmt.Errorf("%w: argon2 threads must be at least 1", ErrParams)
	case a.MemoryKiB < 8*uint32(a.Threads) || a.MemoryKiB > MaxArgon2Memory:
		return fmt.Errorf("%w: argon2 memory %d KiB outside %d..%d (at least 8 KiB per thread)",
			ErrParams, a.MemoryKiB, 8*uint32(a.Threads), MaxArgon2Memory)
	}
	return nil
}

// argon2Salt is Argon2id's salt. A puzzle hash must be a fixed function of its
// input, so the salt is a constant that separates this use from any other.
var argon2Salt = []byte("electbench/pow/v1")

// sumFunc is H: 32 bytes out of any input. The base functions (sha256.Sum256
// and its peers) are used directly when k = 1, so the hot loops call them
// through one indirect call and nothing else.
type sumFunc func([]byte) [32]byte

// sum returns H for p, assumed valid: the base function iterated k times.
func (p Params) sum() sumFunc {
	var base sumFunc
	switch p.Hash {
	case SHA256:
		base = sha256.Sum256
	case BLAKE2b256:
		base = blake2b.Sum256
	case SHA3_256:
		base = sha3.Sum256
	case Argon2id:
		a := p.Argon2
		base = func(in []byte) (out [32]byte) {
			copy(out[:], argon2.IDKey(in, argon2Salt, a.Time, a.MemoryKiB, a.Threads, 32))
			return out
		}
	default:
		panic("pow: sum of unvalidated params with hash " + string(p.Hash))
	}
	if p.Iterations <= 1 {
		return base
	}
	k := p.Iterations
	return func(in []byte) [32]byte {
		out := base(in)
		for range k - 1 {
			out = base(out[:])
		}
		return out
	}
}

// leadingZeros returns the number of leading zero bits of h.
func leadingZeros(h *[32]byte) int {
	n := 0
	for i := 0; i < 32; i += 8 {
		w := binary.BigEndian.Uint64(h[i:])
		if w != 0 {
			return n + bits.LeadingZeros64(w)
		}
		n += 64
	}
	return n
}

// zeroShift returns the shift s such that a hash has at least b ≤ 64 leading
// zero bits exactly when its first big-endian word >> s is zero (Go defines
// x >> 64 as 0, so b = 0 accepts everything). The hot loops test that one
// word rather than calling leadingZeros.
func zeroShift(b int) uint { return uint(64 - b) }
