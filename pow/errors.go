package pow

import "errors"

// Sentinel errors. Every error this package returns for a bad identity wraps
// exactly one of these with %w, so callers test the reason with errors.Is and
// print the wrapped error for the details.
var (
	// ErrEncoding: the identity or key file is malformed — not the canonical
	// JSON this package writes, a bad field value, bad hex, or a checksum that
	// does not match the content (the file was altered).
	ErrEncoding = errors.New("bad encoding")

	// ErrTruncated: the file ends before its content does.
	ErrTruncated = errors.New("truncated file")

	// ErrVersion: the file is of a format version this build does not read.
	ErrVersion = errors.New("unsupported format version")

	// ErrUnknownHash: the hash function is not one of Hashes().
	ErrUnknownHash = errors.New("unknown hash function")

	// ErrKeyMismatch: the identity is not H(public key), or a private key does
	// not belong to the identity.
	ErrKeyMismatch = errors.New("key/id mismatch")

	// ErrPuzzle: the proof does not solve the puzzle it claims (static:
	// leading zero bits of H(id); dynamic: of H(id ⊕ X)).
	ErrPuzzle = errors.New("wrong puzzle solution")

	// ErrPolicy: the identity may be valid, but the verifier's Policy refuses
	// it: a hash it does not accept, a puzzle easier than it requires, or more
	// verification work than it allows a peer.
	ErrPolicy = errors.New("refused by policy")

	// ErrSignature: a signature does not verify under the identity's key.
	ErrSignature = errors.New("bad signature")

	// ErrParams: the parameters given to Mint, Identities, Grind or Bench are
	// out of range.
	ErrParams = errors.New("invalid parameters")
)
