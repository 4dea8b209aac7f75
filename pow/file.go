package pow

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/electbench/electbench/internal/boundedio"
	"github.com/electbench/electbench/nodes"
)

// The identity file: canonical, indented JSON, one field per line, e.g.
//
//	{
//	  "format": "electbench-pow-identity",
//	  "version": 1,
//	  "id": "<64 hex digits: H(public key)>",
//	  "public_key": "<64 hex digits: Ed25519>",
//	  "hash": "sha256",
//	  "iterations": 1,
//	  "bits": 16,
//	  "dynamic_bits": 0,
//	  "checksum": "sha256:<64 hex digits>"
//	}
//
// "argon2": {"time", "memory_kib", "threads"} appears exactly when hash is
// argon2id, and "nonce" (64 hex digits) exactly when dynamic_bits > 0.
// Hex is lower case. checksum is SHA-256 of the file as written with checksum
// set to "". A reader accepts only what Encode writes, byte for byte, so any
// change to a file — one flipped bit included — is refused with a reason,
// even one (fewer bits claimed, another nonce) that would still verify.
// The private key lives in a second file (WriteKeyFile).
const (
	fileFormat  = "electbench-pow-identity"
	fileVersion = 1
	// MaxFileSize bounds what Decode reads; identity files are under 1 KiB.
	MaxFileSize = 4096
	keyPEMType  = "PRIVATE KEY"
	checksumTag = "sha256:"
)

type fileV1 struct {
	Format      string        `json:"format"`
	Version     int           `json:"version"`
	ID          string        `json:"id"`
	PublicKey   string        `json:"public_key"`
	Hash        string        `json:"hash"`
	Iterations  int           `json:"iterations"`
	Argon2      *Argon2Params `json:"argon2,omitempty"`
	Bits        int           `json:"bits"`
	DynamicBits int           `json:"dynamic_bits"`
	Nonce       string        `json:"nonce,omitempty"`
	Checksum    string        `json:"checksum"`
}

// Encode returns the identity file for id. It does not verify id, but refuses
// parameters out of range and a nonce without a dynamic puzzle (the file would
// drop it).
func Encode(id *Identity) ([]byte, error) {
	if err := id.Params.Validate(); err != nil {
		return nil, err
	}
	if id.DynBits == 0 && id.Nonce != [32]byte{} {
		return nil, fmt.Errorf("%w: nonce %x without a dynamic puzzle", ErrParams, id.Nonce)
	}
	idb := id.ID.Bytes()
	f := fileV1{
		Format:      fileFormat,
		Version:     fileVersion,
		ID:          hex.EncodeToString(idb[:]),
		PublicKey:   hex.EncodeToString(id.PublicKey[:]),
		Hash:        string(id.Hash),
		Iterations:  id.Iterations,
		Bits:        id.Bits,
		DynamicBits: id.DynBits,
	}
	if id.Hash == Argon2id {
		a := id.Argon2
		f.Argon2 = &a
	}
	if id.DynBits > 0 {
		f.Nonce = hex.EncodeToString(id.Nonce[:])
	}
	f.Checksum = checksum(&f)
	return marshal(&f), nil
}

func marshal(f *fileV1) []byte {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		panic("pow: marshalling an identity file: " + err.Error()) // plain strings and numbers: cannot fail
	}
	return append(b, '\n')
}

// checksum returns the checksum field for f: SHA-256 of f written with an
// empty checksum.
func checksum(f *fileV1) string {
	g := *f
	g.Checksum = ""
	h := sha256.Sum256(marshal(&g))
	return checksumTag + hex.EncodeToString(h[:])
}

// Decode reads an identity file. It checks the encoding only — version, field
// values, canonical form and checksum — and not the puzzle: call Verify, or
// Policy.Verify, next. Errors wrap ErrTruncated, ErrVersion, ErrUnknownHash
// or ErrEncoding.
func Decode(data []byte) (*Identity, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty file", ErrTruncated)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%w: %d bytes, more than an identity file's %d", ErrEncoding, len(data), MaxFileSize)
	}
	// The header first, leniently, so that a newer version with other
	// fields is reported as a version, not as unknown fields.
	var hdr struct {
		Format  string `json:"format"`
		Version *int   `json:"version"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&hdr); err != nil {
		return nil, syntaxError(err)
	}
	if hdr.Format != fileFormat {
		return nil, fmt.Errorf("%w: format is %q, want %q", ErrEncoding, hdr.Format, fileFormat)
	}
	if hdr.Version == nil {
		return nil, fmt.Errorf("%w: no version field", ErrEncoding)
	}
	if *hdr.Version != fileVersion {
		return nil, fmt.Errorf("%w: version %d (this build reads version %d)", ErrVersion, *hdr.Version, fileVersion)
	}
	var f fileV1
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, syntaxError(err)
	}
	hash, err := ParseHash(f.Hash)
	if err != nil {
		return nil, err
	}
	id := &Identity{Params: Params{Hash: hash, Iterations: f.Iterations, Bits: f.Bits, DynBits: f.DynamicBits}}
	if f.Argon2 != nil {
		id.Argon2 = *f.Argon2
	}
	switch {
	case hash == Argon2id && f.Argon2 == nil:
		return nil, fmt.Errorf("%w: hash argon2id without argon2 settings", ErrEncoding)
	case hash != Argon2id && f.Argon2 != nil:
		return nil, fmt.Errorf("%w: argon2 settings with hash %s", ErrEncoding, hash)
	case f.DynamicBits > 0 && f.Nonce == "":
		return nil, fmt.Errorf("%w: dynamic_bits %d without a nonce", ErrEncoding, f.DynamicBits)
	case f.DynamicBits <= 0 && f.Nonce != "":
		return nil, fmt.Errorf("%w: nonce without dynamic_bits", ErrEncoding)
	}
	if err := id.Params.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEncoding, err)
	}
	var idb [32]byte
	if err := decodeHex("id", f.ID, idb[:]); err != nil {
		return nil, err
	}
	id.ID = nodes.IDFromBytes(idb)
	if err := decodeHex("public_key", f.PublicKey, id.PublicKey[:]); err != nil {
		return nil, err
	}
	if f.Nonce != "" {
		if err := decodeHex("nonce", f.Nonce, id.Nonce[:]); err != nil {
			return nil, err
		}
	}
	if want := checksum(&f); f.Checksum != want {
		return nil, fmt.Errorf("%w: checksum mismatch: the file was altered after it was written", ErrEncoding)
	}
	if canon := marshal(&f); !bytes.Equal(canon, data) {
		if bytes.HasPrefix(canon, data) {
			return nil, fmt.Errorf("%w: %d bytes of %d", ErrTruncated, len(data), len(canon))
		}
		return nil, fmt.Errorf("%w: not in canonical form from byte %d (the file was edited or corrupted)",
			ErrEncoding, firstDiff(canon, data))
	}
	return id, nil
}

// syntaxError classifies an error of json.Decoder: input that ends inside the
// value is truncated (the decoder says io.ErrUnexpectedEOF only then);
// anything else is a bad encoding.
func syntaxError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: the file ends inside its JSON object", ErrTruncated)
	}
	return fmt.Errorf("%w: %v", ErrEncoding, err)
}

// decodeHex reads exactly len(dst) bytes from lower-case hex: upper case would
// decode to the same bytes, and a file must have one spelling only.
func decodeHex(field, s string, dst []byte) error {
	if len(s) != 2*len(dst) {
		return fmt.Errorf("%w: %s has %d characters, want %d hex digits", ErrEncoding, field, len(s), 2*len(dst))
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return fmt.Errorf("%w: %s: character %d (%q) is not a lower-case hex digit", ErrEncoding, field, i, c)
		}
	}
	_, err := hex.Decode(dst, []byte(s))
	return err
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// ReadFile reads and decodes the identity file at path (see Decode). Errors
// name the file.
func ReadFile(path string) (*Identity, error) {
	data, err := boundedio.ReadFile(path, MaxFileSize, "identity file")
	if err != nil {
		return nil, err
	}
	id, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return id, nil
}

// WriteFile writes id's identity file at path, atomically, mode 0644.
func WriteFile(path string, id *Identity) error {
	data, err := Encode(id)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeAtomic(path, data, 0o644)
}

// EncodeKey returns the private key file: PKCS #8 in PEM ("PRIVATE KEY"),
// which openssl and most tools read.
func EncodeKey(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("pow: encoding the private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: keyPEMType, Bytes: der}), nil
}

// DecodeKey reads a private key file written by EncodeKey. Errors wrap
// ErrTruncated or ErrEncoding.
func DecodeKey(data []byte) (ed25519.PrivateKey, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		if bytes.Contains(data, []byte("-----BEGIN ")) && !bytes.Contains(data, []byte("-----END ")) {
			return nil, fmt.Errorf("%w: PEM block without its END line", ErrTruncated)
		}
		return nil, fmt.Errorf("%w: no PEM block", ErrEncoding)
	}
	if block.Type != keyPEMType {
		return nil, fmt.Errorf("%w: PEM block %q, want %q", ErrEncoding, block.Type, keyPEMType)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("%w: data after the PEM block", ErrEncoding)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: a %T, want an Ed25519 key", ErrEncoding, k)
	}
	return priv, nil
}

// ReadKeyFile reads the private key file at path.
func ReadKeyFile(path string) (ed25519.PrivateKey, error) {
	data, err := boundedio.ReadFile(path, MaxFileSize, "key file")
	if err != nil {
		return nil, err
	}
	k, err := DecodeKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// WriteKeyFile writes the private key file at path, atomically, mode 0600.
func WriteKeyFile(path string, priv ed25519.PrivateKey) error {
	data, err := EncodeKey(priv)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeAtomic(path, data, 0o600)
}

// writeAtomic writes data to a temporary file beside path and renames it into
// place, so readers see the old file or the new one, never a part.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
