package pow

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// fuzzPolicy keeps each verification cheap whatever the input asks for.
var fuzzPolicy = Policy{MaxHashes: 12, MaxArgon2KiB: 3 * 256}

func validFiles(f *testing.F) [][]byte {
	var files [][]byte
	for _, p := range testParams() {
		k := mintForTest(f, p)
		data, err := Encode(&k.Identity)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, data)
	}
	return files
}

// FuzzDecode: Decode never panics, refuses with a sentinel, and accepts only
// what Encode writes.
func FuzzDecode(f *testing.F) {
	for _, data := range validFiles(f) {
		f.Add(data)
		f.Add(data[:len(data)/2])
		f.Add(bytes.Replace(data, []byte(`"version": 1`), []byte(`"version": 7`), 1))
	}
	f.Add([]byte("{}"))
	f.Add([]byte(`{"format":"electbench-pow-identity","version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := Decode(data)
		if err != nil {
			if reason(err) == nil {
				t.Fatalf("error %q wraps no sentinel", err)
			}
			return
		}
		again, err := Encode(id)
		if err != nil {
			t.Fatalf("decoded %+v but cannot encode it: %v", id, err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("decoded a file that is not what Encode writes:\n%q\n%q", data, again)
		}
		if err := fuzzPolicy.Verify(id); err != nil && reason(err) == nil {
			t.Fatalf("verify error %q wraps no sentinel", err)
		}
	})
}

// FuzzDecodeKey: DecodeKey never panics and what it accepts round-trips.
func FuzzDecodeKey(f *testing.F) {
	k := mintForTest(f, paramsFor(SHA256))
	good, err := EncodeKey(k.Private)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:40])
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		priv, err := DecodeKey(data)
		if err != nil {
			if reason(err) == nil {
				t.Fatalf("error %q wraps no sentinel", err)
			}
			return
		}
		if len(priv) != ed25519.PrivateKeySize {
			t.Fatalf("decoded a %d-byte key", len(priv))
		}
		again, err := EncodeKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := DecodeKey(again); err != nil || !bytes.Equal(back, priv) {
			t.Fatalf("key does not round-trip: %v", err)
		}
	})
}

// FuzzVerify: whatever an identity holds, Policy.Verify never panics, refuses
// with a sentinel, and accepts only an identity that meets the definition.
func FuzzVerify(f *testing.F) {
	for _, p := range testParams() {
		k := mintForTest(f, p)
		idb := k.ID.Bytes()
		f.Add(string(p.Hash), p.Iterations, p.Bits, p.DynBits, k.PublicKey[:], idb[:], k.Nonce[:],
			p.Argon2.Time, p.Argon2.MemoryKiB, p.Argon2.Threads)
	}
	f.Fuzz(func(t *testing.T, hash string, iter, b, c int, pub, id, nonce []byte, time, mem uint32, threads uint8) {
		var x Identity
		x.Params = Params{Hash: Hash(hash), Iterations: iter, Bits: b, DynBits: c,
			Argon2: Argon2Params{Time: time, MemoryKiB: mem, Threads: threads}}
		copy(x.PublicKey[:], pub)
		var idb [32]byte
		copy(idb[:], id)
		x.ID = nodes.IDFromBytes(idb)
		copy(x.Nonce[:], nonce)
		err := fuzzPolicy.Verify(&x)
		if err != nil {
			if reason(err) == nil {
				t.Fatalf("error %q wraps no sentinel", err)
			}
			return
		}
		sum := x.Params.sum()
		if nodes.IDFromBytes(sum(x.PublicKey[:])) != x.ID {
			t.Fatal("accepted an id that is not H(public key)")
		}
		if h := sum(idb[:]); leadingZeros(&h) < x.Bits {
			t.Fatal("accepted an unsolved static puzzle")
		}
	})
}
