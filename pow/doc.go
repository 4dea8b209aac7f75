// Package pow mints and verifies proof-of-work identities (ALGORITHMS.md,
// "Identities (proof of work)").
//
// An identity is an Ed25519 key pair; its id is H(public key), a nodes.ID. The
// static puzzle asks that H(id) have b leading zero bits, so minting tries
// about 2^b key pairs while anyone verifies with two hashes; the optional
// dynamic puzzle asks for a nonce X with c leading zero bits in H(id ⊕ X),
// 2^c hashes. H is SHA-256, BLAKE2b-256, SHA3-256 or Argon2id (never SHA-1),
// optionally iterated k times. Argon2id is memory-hard and just as costly to
// verify, per hash, as to mint: a verifier facing the network bounds that
// work with a Policy.
//
// Minting (Mint) runs on every core, stops with its context and reports
// progress. Identities travel as a small canonical JSON file (Encode, Decode,
// WriteFile, ReadFile) with the private key in a second file, PKCS #8 PEM,
// mode 0600 (WriteKeyFile, ReadKeyFile). Every failure wraps one of the
// sentinel errors (ErrEncoding, ErrTruncated, ErrVersion, ErrUnknownHash,
// ErrKeyMismatch, ErrPuzzle, ErrPolicy, ErrSignature, ErrParams) for
// errors.Is.
//
// For simulations, Identities returns n valid identities minted
// deterministically and cached on disk, and EpochRank ranks an id by
// H(id ‖ epoch nonce). Grind measures what an adversary with a CPU budget
// gains by grinding ids, and Bench how fast the hashes and key generation
// run. The package prints nothing; cmd/electbench does.
//
// Typical use:
//
//	k, _, err := pow.Mint(ctx, pow.Params{Hash: pow.SHA256, Iterations: 1, Bits: 16}, pow.MintOptions{})
//	err = pow.WriteFile("node.id", &k.Identity)
//	err = pow.WriteKeyFile("node.id.key", k.Private)
//	id, err := pow.DefaultPolicy().VerifyFile("node.id")
package pow
