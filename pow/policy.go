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
	if err := id.Params.Validate(); err != nil {
		return err
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
	return id.Verify()
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
