package pow

import (
	"fmt"
	"math"
)

// Params are the puzzle settings of an identity. The identity is
// id = H(public key); the static puzzle asks that H(id) have at least Bits
// leading zero bits, and the optional dynamic puzzle asks for a nonce X such
// that H(id ⊕ X) has at least DynBits. H is Hash applied Iterations times.
type Params struct {
	Hash       Hash         // H's base function
	Iterations int          // k ≥ 1: H(x) = h(h(…h(x))), k applications
	Bits       int          // b, 0..MaxBits: costs 2^b key pairs on average
	DynBits    int          // c, 0..MaxBits: costs 2^c hashes on average; 0 = no dynamic puzzle
	Argon2     Argon2Params // Argon2id's costs; ignored (and zeroed) for other hashes
}

// DefaultParams returns SHA-256, one iteration, 16 static bits, no dynamic
// puzzle: about 65 thousand key pairs, a second or two on one core.
func DefaultParams() Params {
	return Params{Hash: SHA256, Iterations: 1, Bits: 16}
}

// Validate reports parameters out of range. An unknown hash wraps
// ErrUnknownHash; anything else wraps ErrParams.
func (p Params) Validate() error {
	if _, err := ParseHash(string(p.Hash)); err != nil {
		return err
	}
	switch {
	case p.Iterations < 1 || p.Iterations > MaxIterations:
		return fmt.Errorf("%w: iterations %d outside 1..%d", ErrParams, p.Iterations, MaxIterations)
	case p.Bits < 0 || p.Bits > MaxBits:
		return fmt.Errorf("%w: bits %d outside 0..%d", ErrParams, p.Bits, MaxBits)
	case p.DynBits < 0 || p.DynBits > MaxBits:
		return fmt.Errorf("%w: dynamic bits %d outside 0..%d", ErrParams, p.DynBits, MaxBits)
	}
	if p.Hash == Argon2id {
		return p.Argon2.Validate()
	}
	return nil
}

// normal returns p with the fields its hash ignores zeroed, so that equal
// puzzles compare equal.
func (p Params) normal() Params {
	if p.Hash != Argon2id {
		p.Argon2 = Argon2Params{}
	}
	return p
}

// ExpectedWork returns the mean work to mint: 2^Bits key pairs (each costing
// two evaluations of H) and 2^DynBits evaluations of H for the nonce.
func (p Params) ExpectedWork() (keyPairs, hashes float64) {
	if p.DynBits > 0 {
		hashes = math.Ldexp(1, p.DynBits)
	}
	return math.Ldexp(1, p.Bits), hashes
}

// String names p compactly and uniquely; it also names cache directories, so
// it holds only characters safe in a file name.
func (p Params) String() string {
	s := string(p.Hash)
	if p.Hash == Argon2id {
		s += fmt.Sprintf("-t%d-m%d-p%d", p.Argon2.Time, p.Argon2.MemoryKiB, p.Argon2.Threads)
	}
	return s + fmt.Sprintf("-k%d-b%d-c%d", p.Iterations, p.Bits, p.DynBits)
}
