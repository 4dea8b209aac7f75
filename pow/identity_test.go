package pow

import (
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// keySearch slices the public key out of the private key; this pins the
// layout it relies on.
func TestPrivateKeyLayout(t *testing.T) {
	for i := range 8 {
		seed := [32]byte{byte(i)}
		priv := ed25519.NewKeyFromSeed(seed[:])
		if pub := priv.Public().(ed25519.PublicKey); string(pub) != string(priv[ed25519.SeedSize:]) {
			t.Fatalf("public key %x is not the private key's tail %x", pub, priv[ed25519.SeedSize:])
		}
	}
}

// ALGORITHMS.md: "its id is H(public key)"; "H(id) must have at least b
// leading zero bits"; "a nonce X with H(id ⊕ X) having c leading zero bits".
func TestVerifyChecksTheDefinition(t *testing.T) {
	for _, p := range testParams() {
		t.Run(p.String(), func(t *testing.T) {
			k := mintForTest(t, p)
			sum := p.sum()
			if want := nodes.IDFromBytes(sum(k.PublicKey[:])); k.ID != want {
				t.Fatalf("id %v, want H(public key) %v", k.ID, want)
			}
			idb := k.ID.Bytes()
			if h := sum(idb[:]); leadingZeros(&h) < p.Bits {
				t.Fatalf("H(id) = %x has fewer than %d leading zero bits", h, p.Bits)
			}
			if p.DynBits > 0 {
				var x [32]byte
				for i := range x {
					x[i] = idb[i] ^ k.Nonce[i]
				}
				if h := sum(x[:]); leadingZeros(&h) < p.DynBits {
					t.Fatalf("H(id ⊕ X) = %x has fewer than %d leading zero bits", h, p.DynBits)
				}
			}
			if err := k.Verify(); err != nil {
				t.Fatal(err)
			}

			bad := k.Identity
			bad.ID[3] ^= 1
			if err := bad.Verify(); !errors.Is(err, ErrKeyMismatch) {
				t.Errorf("id off by one bit: %v, want ErrKeyMismatch", err)
			}
			bad = k.Identity
			bad.Bits = MaxBits
			if err := bad.Verify(); !errors.Is(err, ErrPuzzle) {
				t.Errorf("claiming %d bits: %v, want ErrPuzzle", MaxBits, err)
			}
			if p.DynBits == 0 {
				bad = k.Identity
				bad.Nonce[31] ^= 1
				if err := bad.Verify(); !errors.Is(err, ErrPuzzle) {
					t.Errorf("nonce without a dynamic puzzle: %v, want ErrPuzzle", err)
				}
			}
			bad = k.Identity
			bad.Hash = "sha1"
			if err := bad.Verify(); !errors.Is(err, ErrUnknownHash) {
				t.Errorf("sha1: %v, want ErrUnknownHash", err)
			}
		})
	}
}

func TestSignature(t *testing.T) {
	k := mintForTest(t, paramsFor(SHA256))
	msg := []byte("challenge 1234")
	sig := k.Sign(msg)
	if err := k.VerifySignature(msg, sig); err != nil {
		t.Fatal(err)
	}
	if err := k.VerifySignature([]byte("challenge 1235"), sig); !errors.Is(err, ErrSignature) {
		t.Errorf("other message: %v, want ErrSignature", err)
	}
	other := mintForTest(t, Params{Hash: SHA256, Iterations: 1, Bits: 5})
	if err := other.VerifySignature(msg, sig); !errors.Is(err, ErrSignature) {
		t.Errorf("other identity: %v, want ErrSignature", err)
	}
}

func TestRank(t *testing.T) {
	k := mintForTest(t, paramsFor(SHA256))
	if r := k.Rank(); r.ID != k.ID || r.Attr != 0 {
		t.Errorf("Rank() = %v", r)
	}
}
