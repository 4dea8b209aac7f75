package pow

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"

	"github.com/electbench/electbench/nodes"
)

// Identity is the public part of a minted identity: what a node shows its
// peers and what the identity file holds.
type Identity struct {
	Params
	PublicKey [ed25519.PublicKeySize]byte // Ed25519 public key
	ID        nodes.ID                    // H(PublicKey)
	Nonce     [32]byte                    // X, the dynamic puzzle's proof; zero without one
}

// Key is a minted identity with its private key.
type Key struct {
	Identity
	Private ed25519.PrivateKey
}

// Rank returns the identity's rank with no election attribute.
func (id *Identity) Rank() nodes.Rank { return nodes.Rank{ID: id.ID} }

// Verify checks the identity: parameters in range, ID = H(PublicKey), the
// static puzzle, and the dynamic puzzle if any. It costs 2k evaluations of the
// base hash (3k with a dynamic puzzle) — microseconds for the fast hashes, and
// for Argon2id as much time and memory as minting spends per hash, by design.
// A verifier facing untrusted peers should call Policy.Verify, which bounds
// that work first.
//
// Errors wrap ErrUnknownHash or ErrParams (parameters), ErrKeyMismatch or
// ErrPuzzle.
func (id *Identity) Verify() error {
	if err := id.Params.Validate(); err != nil {
		return err
	}
	sum := id.Params.sum()
	if want := nodes.IDFromBytes(sum(id.PublicKey[:])); want != id.ID {
		return fmt.Errorf("%w: id %s is not H(public key %x) = %s",
			ErrKeyMismatch, hexID(id.ID), id.PublicKey, hexID(want))
	}
	b := id.ID.Bytes()
	h := sum(b[:])
	if z := leadingZeros(&h); z < id.Bits {
		return fmt.Errorf("%w: static puzzle: H(id) has %d leading zero bits, want %d", ErrPuzzle, z, id.Bits)
	}
	if id.DynBits == 0 {
		if id.Nonce != [32]byte{} {
			return fmt.Errorf("%w: nonce %x given without a dynamic puzzle", ErrPuzzle, id.Nonce)
		}
		return nil
	}
	for i := range b {
		b[i] ^= id.Nonce[i]
	}
	h = sum(b[:])
	if z := leadingZeros(&h); z < id.DynBits {
		return fmt.Errorf("%w: dynamic puzzle: H(id ⊕ X) has %d leading zero bits, want %d", ErrPuzzle, z, id.DynBits)
	}
	return nil
}

// CheckKey reports whether priv is the private key of id (ErrKeyMismatch if
// not).
func (id *Identity) CheckKey(priv ed25519.PrivateKey) error {
	if len(priv) != ed25519.PrivateKeySize {
		return fmt.Errorf("%w: private key is %d bytes, want %d", ErrKeyMismatch, len(priv), ed25519.PrivateKeySize)
	}
	pub := priv.Public().(ed25519.PublicKey)
	if [ed25519.PublicKeySize]byte(pub) != id.PublicKey {
		return fmt.Errorf("%w: private key belongs to public key %x, not %x", ErrKeyMismatch, pub, id.PublicKey)
	}
	return nil
}

// Sign signs msg with the identity's private key; a peer checks it with
// VerifySignature to learn that the sender holds the key (a handshake signs
// the peer's fresh challenge, so a copied identity file is useless).
func (k *Key) Sign(msg []byte) []byte { return ed25519.Sign(k.Private, msg) }

// VerifySignature checks sig over msg under the identity's public key
// (ErrSignature if it does not verify).
func (id *Identity) VerifySignature(msg, sig []byte) error {
	if !ed25519.Verify(id.PublicKey[:], msg, sig) {
		return fmt.Errorf("%w: signature does not verify under public key %x", ErrSignature, id.PublicKey)
	}
	return nil
}

// hexID prints an id as 64 hex digits, always (nodes.ID.String prints small
// ids in decimal).
func hexID(id nodes.ID) string {
	b := id.Bytes()
	return hex.EncodeToString(b[:])
}
