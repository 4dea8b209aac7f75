package pow

import (
	"fmt"
	"slices"
)

// Policy is what a verifier accepts from one peer. It is checked before any
// hashing, so a peer cannot make the verifier work harder than the policy
// allows: verifying an identity costs 2k evaluations of the base hash (3k
// with a dynamic puzzle), and with Argon2id each evaluation fills
// memory_kib × time of memory — Argon2id is deliberately as slow to verify,
// per hash, as it is to mint.
type Policy struct {
	Hashes       []Hash // hash functions accepted; nil accepts every one
	MinBits      int    // least static difficulty b accepted
	MinDynBits   int    // least dynamic difficulty c accepted
	MaxHashes    uint64 // most base-hash evaluations one verification may cost
	MaxArgon2KiB uint64 // most Argon2id memory one verification may fill: KiB × passes, summed over its evaluations
	// Puzzle, when set, is the one puzzle a cluster's identities use: an
	// identity of another hash, iteration count or Argon2 cost is refused
	// before any hashing, whatever the caps above would allow.
	Puzzle *Params
}

// PolicyFor is the policy of a cluster whose identities all solve p: exactly
// p's hash, iterations and Argon2 costs, at least its difficulties, and no
// more verification work than such an identity needs. A peer can then make
// a verifier spend no more than the cluster's own identities cost.
func PolicyFor(p Params) Policy {
	p = p.normal()
	w := p.VerifyWork()
	if p.DynBits == 0 {
		// An identity may solve a dynamic puzzle the cluster does not ask
		// for; it costs a third more to verify, no more.
		w = Params{Hash: p.Hash, Iterations: p.Iterations, DynBits: 1, Argon2: p.Argon2}.VerifyWork()
	}
	return Policy{Hashes: []Hash{p.Hash}, MinBits: p.Bits, MinDynBits: p.DynBits,
		MaxHashes: w.Hashes, MaxArgon2KiB: w.Argon2KiB, Puzzle: &p}
}

// DefaultPolicy accepts every hash at any difficulty and caps one
// verification at 3·2^16 base hashes (k ≤ 65536; tens of milliseconds at
// most for the fast hashes) and 1 GiB·pass of Argon2id (the default Argon2id
// settings need 192 MiB·pass).
func DefaultPolicy() Policy {
	return Policy{MaxHashes: 3 << 16, MaxArgon2KiB: 1 << 20}
}

// Work is what verifying an identity costs.
type Work struct {
	Hashes    uint64 // evaluations of the base hash function
	Argon2KiB uint64 // for Argon2id: KiB × passes filled, summed over the evaluations
}

// VerifyWork returns what Verify costs for identities with parameters p
// (assumed valid; the limits on Params keep this from overflowing).
func (p Params) VerifyWork() Work {
	n := uint64(2)
	if p.DynBits > 0 {
		n = 3
	}
	w := Work{Hashes: n * uint64(p.Iterations)}
	if p.Hash == Argon2id {
		w.Argon2KiB = w.Hashes * uint64(p.Argon2.Time) * uint64(p.Argon2.MemoryKiB)
	}
	return w
}

// Verify checks id against the policy, then verifies it (Identity.Verify).
// This is the entry point for identities from the network. Refusals wrap
// ErrPolicy.
func (pol Policy) Verify(id *Identity) error {
	if err := pol.Admit(id); err != nil {
		return err
	}
	return id.Verify()
}

// Admit is Verify's half that costs no hashing: id's parameters are in
// range and the policy accepts them and the work verifying them takes. A
// verifier facing untrusted peers calls it first, checks what else is cheap
// (is the id one it expects?), and only then pays for Identity.Verify.
func (pol Policy) Admit(id *Identity) error {
	if err := id.Params.Validate(); err != nil {
		return err
	}
	if q := pol.Puzzle; q != nil {
		if id.Hash != q.Hash || id.Iterations != q.Iterations || id.normal().Argon2 != q.normal().Argon2 {
			return fmt.Errorf("%w: puzzle %s is not this cluster's %s", ErrPolicy, id.Params, *q)
		}
	}
	if pol.Hashes != nil && !slices.Contains(pol.Hashes, id.Hash) {
		return fmt.Errorf("%w: hash %s not accepted (accepted: %v)", ErrPolicy, id.Hash, pol.Hashes)
	}
	if id.Bits < pol.MinBits {
		return fmt.Errorf("%w: static puzzle of %d bits, at least %d required", ErrPolicy, id.Bits, pol.MinBits)
	}
	if id.DynBits < pol.MinDynBits {
		return fmt.Errorf("%w: dynamic puzzle of %d bits, at least %d required", ErrPolicy, id.DynBits, pol.MinDynBits)
	}
	w := id.VerifyWork()
	if w.Hashes > pol.MaxHashes {
		return fmt.Errorf("%w: verifying would take %d hash evaluations, more than the %d allowed",
			ErrPolicy, w.Hashes, pol.MaxHashes)
	}
	if w.Argon2KiB > pol.MaxArgon2KiB {
		return fmt.Errorf("%w: verifying would fill %d KiB·passes of Argon2id memory, more than the %d allowed",
			ErrPolicy, w.Argon2KiB, pol.MaxArgon2KiB)
	}
	return nil
}

// VerifyFile reads the identity file at path and verifies it under pol.
// Errors name the file.
func (pol Policy) VerifyFile(path string) (*Identity, error) {
	id, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := pol.Verify(id); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return id, nil
}
