package pow

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/electbench/electbench/internal/boundedio"
)

// sentinels are the reasons a bad identity can be refused for.
var sentinels = []error{ErrEncoding, ErrTruncated, ErrVersion, ErrUnknownHash, ErrKeyMismatch, ErrPuzzle, ErrPolicy, ErrParams}

func reason(err error) error {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s
		}
	}
	return nil
}

// testParams are one small set of parameters per hash, with and without the
// dynamic puzzle and iteration.
func testParams() []Params {
	var ps []Params
	for _, h := range Hashes() {
		p := paramsFor(h)
		ps = append(ps, p)
		p.DynBits, p.Iterations = 3, 2
		ps = append(ps, p)
	}
	return ps
}

// The issue: "mint → write → read → verify for every hash".
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, p := range testParams() {
		t.Run(p.String(), func(t *testing.T) {
			k := mintForTest(t, p)
			idPath := filepath.Join(dir, p.String()+".id")
			keyPath := idPath + ".key"
			if err := WriteFile(idPath, &k.Identity); err != nil {
				t.Fatal(err)
			}
			if err := WriteKeyFile(keyPath, k.Private); err != nil {
				t.Fatal(err)
			}
			got, err := DefaultPolicy().VerifyFile(idPath)
			if err != nil {
				t.Fatalf("VerifyFile: %v", err)
			}
			if *got != k.Identity {
				t.Errorf("read %+v, wrote %+v", *got, k.Identity)
			}
			priv, err := ReadKeyFile(keyPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.CheckKey(priv); err != nil {
				t.Error(err)
			}
			if !bytes.Equal(priv, k.Private) {
				t.Error("private key changed in the round trip")
			}
			for path, want := range map[string]os.FileMode{idPath: 0o644, keyPath: 0o600} {
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != want {
					t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
				}
			}
		})
	}
}

func TestFileIsReadable(t *testing.T) {
	k := mintForTest(t, Params{Hash: Argon2id, Iterations: 1, Bits: 2, DynBits: 2, Argon2: testArgon2})
	data, err := Encode(&k.Identity)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format": "electbench-pow-identity"`, `"version": 1`, `"hash": "argon2id"`,
		`"memory_kib": 64`, `"bits": 2`, `"dynamic_bits": 2`, `"nonce": "`, `"checksum": "sha256:`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("identity file lacks %s:\n%s", want, data)
		}
	}
}

// The issue: "any single flipped bit in the identity file fails verification
// with a clear reason".
func TestEveryBitFlipFails(t *testing.T) {
	for _, p := range testParams() {
		t.Run(p.String(), func(t *testing.T) {
			k := mintForTest(t, p)
			data, err := Encode(&k.Identity)
			if err != nil {
				t.Fatal(err)
			}
			reasons := map[error]int{}
			for i := range data {
				for bit := range 8 {
					bad := bytes.Clone(data)
					bad[i] ^= 1 << bit
					err := decodeAndVerify(bad)
					if err == nil {
						t.Fatalf("flipping bit %d of byte %d (%q → %q) still verifies", bit, i, data[i], bad[i])
					}
					r := reason(err)
					if r == ErrTruncated {
						t.Fatalf("flipping bit %d of byte %d: reported as %q, but nothing is missing", bit, i, err)
					}
					if r == nil {
						t.Fatalf("flipping bit %d of byte %d: error %q wraps no sentinel", bit, i, err)
					}
					reasons[r]++
				}
			}
			t.Logf("%d flips refused: %v", 8*len(data), reasons)
		})
	}
}

func decodeAndVerify(data []byte) error {
	id, err := Decode(data)
	if err != nil {
		return err
	}
	return DefaultPolicy().Verify(id)
}

func TestEveryTruncationIsTruncated(t *testing.T) {
	for _, p := range testParams() {
		k := mintForTest(t, p)
		data, _ := Encode(&k.Identity)
		for n := range len(data) {
			if _, err := Decode(data[:n]); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s: first %d of %d bytes: %v, want ErrTruncated", p, n, len(data), err)
			}
		}
	}
}

// craft returns a valid identity file for p altered by change, with its
// checksum recomputed: what a careful forger, not corruption, would write.
func craft(t *testing.T, p Params, change func(f *fileV1)) []byte {
	t.Helper()
	k := mintForTest(t, p)
	data, err := Encode(&k.Identity)
	if err != nil {
		t.Fatal(err)
	}
	var f fileV1
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	change(&f)
	f.Checksum = checksum(&f)
	return marshal(&f)
}

func TestDecodeReasons(t *testing.T) {
	sha := Params{Hash: SHA256, Iterations: 1, Bits: 6, DynBits: 4}
	valid := craft(t, sha, func(*fileV1) {})
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"not json", []byte("hello\n"), ErrEncoding},
		{"json array", []byte("[1,2]\n"), ErrEncoding},
		{"other format", craft(t, sha, func(f *fileV1) { f.Format = "something" }), ErrEncoding},
		{"future version", craft(t, sha, func(f *fileV1) { f.Version = 2 }), ErrVersion},
		{"sha1", craft(t, sha, func(f *fileV1) { f.Hash = "sha1" }), ErrUnknownHash},
		{"upper-case hex", craft(t, sha, func(f *fileV1) { f.ID = strings.ToUpper(f.ID) }), ErrEncoding},
		{"short id", craft(t, sha, func(f *fileV1) { f.ID = f.ID[:62] }), ErrEncoding},
		{"bits out of range", craft(t, sha, func(f *fileV1) { f.Bits = 65 }), ErrEncoding},
		{"iterations zero", craft(t, sha, func(f *fileV1) { f.Iterations = 0 }), ErrEncoding},
		{"nonce missing", craft(t, sha, func(f *fileV1) { f.Nonce = "" }), ErrEncoding},
		{"nonce without puzzle", craft(t, sha, func(f *fileV1) { f.DynamicBits = 0 }), ErrEncoding},
		{"argon2 settings with sha256", craft(t, sha, func(f *fileV1) { f.Argon2 = &testArgon2 }), ErrEncoding},
		{"argon2id without settings", craft(t, paramsFor(Argon2id), func(f *fileV1) { f.Argon2 = nil }), ErrEncoding},
		{"checksum stale", bytes.Replace(valid, []byte(`"bits": 6`), []byte(`"bits": 2`), 1), ErrEncoding},
		{"unknown field", bytes.Replace(valid, []byte(`"bits"`), []byte(`"bitz": 1, "bits"`), 1), ErrEncoding},
		{"re-indented", bytes.ReplaceAll(valid, []byte("  "), []byte("\t")), ErrEncoding},
		{"trailing data", append(bytes.Clone(valid), "{}\n"...), ErrEncoding},
		{"too large", append(bytes.Clone(valid), bytes.Repeat([]byte(" "), MaxFileSize)...), ErrEncoding},
		{"id not H(key)", craft(t, sha, func(f *fileV1) { f.ID = strings.Repeat("0", 64) }), ErrKeyMismatch},
		{"key not the id's", craft(t, sha, func(f *fileV1) { f.PublicKey = strings.Repeat("ab", 32) }), ErrKeyMismatch},
		{"more bits than solved", craft(t, sha, func(f *fileV1) { f.Bits = 40 }), ErrPuzzle},
		{"other nonce", craft(t, sha, func(f *fileV1) { f.Nonce = strings.Repeat("0", 63) + "1"; f.DynamicBits = 40 }), ErrPuzzle},
		{"wrong iteration count", craft(t, sha, func(f *fileV1) { f.Iterations = 2 }), ErrKeyMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeAndVerify(tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
	if err := decodeAndVerify(valid); err != nil {
		t.Fatalf("the unaltered file: %v", err)
	}
}

func TestEncodeRefuses(t *testing.T) {
	k := mintForTest(t, paramsFor(SHA256))
	bad := k.Identity
	bad.Nonce[0] = 1
	if _, err := Encode(&bad); !errors.Is(err, ErrParams) {
		t.Errorf("nonce without a dynamic puzzle: %v, want ErrParams", err)
	}
	bad = k.Identity
	bad.Hash = "sha1"
	if err := WriteFile(filepath.Join(t.TempDir(), "x.id"), &bad); !errors.Is(err, ErrUnknownHash) {
		t.Errorf("sha1: %v, want ErrUnknownHash", err)
	}
}

func TestReadFileNamesThePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "broken.id")
	if err := os.WriteFile(path, []byte("{\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadFile: %v, want ErrTruncated naming %s", err, path)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.id")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func TestKeyFile(t *testing.T) {
	k := mintForTest(t, paramsFor(SHA256))
	good, err := EncodeKey(k.Private)
	if err != nil {
		t.Fatal(err)
	}
	other := mintForTest(t, Params{Hash: SHA256, Iterations: 1, Bits: 5})
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ecKey)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"truncated", good[:len(good)/2], ErrTruncated},
		{"empty", nil, ErrEncoding},
		{"not PEM", []byte("hello"), ErrEncoding},
		{"wrong block", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}), ErrEncoding},
		{"not PKCS #8", pem.EncodeToMemory(&pem.Block{Type: keyPEMType, Bytes: []byte{1, 2, 3}}), ErrEncoding},
		{"an ECDSA key", pem.EncodeToMemory(&pem.Block{Type: keyPEMType, Bytes: ecDER}), ErrEncoding},
		{"trailing data", append(bytes.Clone(good), "junk"...), ErrEncoding},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := DecodeKey(tc.data); !errors.Is(err, tc.want) {
				t.Errorf("DecodeKey: %v, want %v", err, tc.want)
			}
		})
	}
	priv, err := DecodeKey(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.CheckKey(priv); err != nil {
		t.Error(err)
	}
	if err := other.CheckKey(priv); !errors.Is(err, ErrKeyMismatch) {
		t.Errorf("another identity's key: %v, want ErrKeyMismatch", err)
	}
	if err := k.CheckKey(priv[:10]); !errors.Is(err, ErrKeyMismatch) {
		t.Errorf("short key: %v, want ErrKeyMismatch", err)
	}
}

// TestReadFileBounded: an identity or key file read from a path larger than
// MaxFileSize (or a device that never ends) is refused before it is read
// whole, naming the path and the limit.
func TestReadFileBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.id")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{big, "/dev/zero"} {
		if _, err := ReadFile(path); !errors.Is(err, boundedio.ErrTooLarge) || !strings.Contains(err.Error(), path) {
			t.Errorf("ReadFile(%s): %v, want too large naming the path", path, err)
		}
		if _, err := ReadKeyFile(path); !errors.Is(err, boundedio.ErrTooLarge) || !strings.Contains(err.Error(), "key file") {
			t.Errorf("ReadKeyFile(%s): %v, want too large naming a key file", path, err)
		}
	}
}
