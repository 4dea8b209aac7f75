package agent

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"
)

// ErrUnpinnedKey is the error of a handshake whose peer presented a key
// other than the pinned one.
var ErrUnpinnedKey = errors.New("peer's key is not the pinned one")

// certificate is a self-signed certificate for priv. Its fields other than
// the key carry no trust (the peer checks the key alone), so it is made
// fresh each time and valid for long enough that no clock skew between
// hosts can reject it.
func certificate(priv ed25519.PrivateKey) (tls.Certificate, error) {
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "electbench"},
		NotBefore:    time.Unix(0, 0),
		NotAfter:     time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, priv.Public(), priv)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("agent: making a certificate for key %x: %w", priv.Public(), err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv}, nil
}

// pinned returns a VerifyPeerCertificate that accepts exactly one
// certificate whose Ed25519 public key is want; whose names the peer's
// role ("controller", "agent") in its errors.
func pinned(whose string, want ed25519.PublicKey) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) != 1 {
			return fmt.Errorf("%w: the %s presented %d certificates, want 1", ErrUnpinnedKey, whose, len(raw))
		}
		cert, err := x509.ParseCertificate(raw[0])
		if err != nil {
			return fmt.Errorf("%w: the %s's certificate: %v", ErrUnpinnedKey, whose, err)
		}
		got, ok := cert.PublicKey.(ed25519.PublicKey)
		if !ok {
			return fmt.Errorf("%w: the %s's key is a %T, want Ed25519 %x", ErrUnpinnedKey, whose, cert.PublicKey, want)
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%w: the %s's key %x is not the pinned %x", ErrUnpinnedKey, whose, got, want)
		}
		// The self-signature proves the peer holds the key's private half
		// only together with the handshake's CertificateVerify, which
		// crypto/tls checks before calling us.
		return nil
	}
}

// serverConfig is the agent's TLS configuration: its key, and only the
// controller's pinned key accepted.
func serverConfig(key ed25519.PrivateKey, controller ed25519.PublicKey) (*tls.Config, error) {
	cert, err := certificate(key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:            tls.VersionTLS13,
		Certificates:          []tls.Certificate{cert},
		ClientAuth:            tls.RequireAnyClientCert,
		VerifyPeerCertificate: pinned("controller", controller),
	}, nil
}

// clientConfig is the controller's TLS configuration towards one agent:
// its key, and only that agent's pinned key accepted. Chain and name
// verification are off because the pin replaces them.
func clientConfig(key ed25519.PrivateKey, agent ed25519.PublicKey) (*tls.Config, error) {
	cert, err := certificate(key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:            tls.VersionTLS13,
		Certificates:          []tls.Certificate{cert},
		InsecureSkipVerify:    true,
		VerifyPeerCertificate: pinned("agent", agent),
	}, nil
}

// Listening is the line `electbench agent` prints once it listens: its
// address and public key. A controller that started the agent reads it
// back with ParseListening.
func Listening(addr net.Addr, key ed25519.PublicKey) string {
	return fmt.Sprintf("agent listening on %s, key %x", addr, []byte(key))
}

// ParseListening reads the address and key of an agent's Listening line.
func ParseListening(line string) (addr string, key ed25519.PublicKey, err error) {
	var hexKey string
	if _, err := fmt.Sscanf(line, "agent listening on %s key %s", &addr, &hexKey); err != nil {
		return "", nil, fmt.Errorf("agent: %q is not the line of a listening agent: %w", line, err)
	}
	addr = strings.TrimSuffix(addr, ",")
	b, err := hex.DecodeString(hexKey)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return "", nil, fmt.Errorf("agent: %q: the key is not %d hex bytes", line, ed25519.PublicKeySize)
	}
	return addr, ed25519.PublicKey(b), nil
}
