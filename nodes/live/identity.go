package live

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// DefaultBits is the static puzzle difficulty of a live node's identity: 256
// key pairs on average, a few milliseconds, so a 32-node cluster mints in
// well under a second while every handshake still checks real work.
const DefaultBits = 8

// IdentityParams are the puzzle settings live nodes mint with.
func IdentityParams(bits int) pow.Params {
	return pow.Params{Hash: pow.SHA256, Iterations: 1, Bits: bits}
}

// Identity files in a node's directory.
const (
	IdentityFile = "node.id"
	KeyFile      = "node.id.key"
)

// LoadOrMint returns the identity kept in dir, verified, or mints one with p
// and keeps it there, so a restarted node comes back with the same identity.
func LoadOrMint(ctx context.Context, dir string, p pow.Params) (*pow.Key, error) {
	idPath, keyPath := filepath.Join(dir, IdentityFile), filepath.Join(dir, KeyFile)
	id, err := pow.ReadFile(idPath)
	switch {
	case err == nil:
		if err := id.Verify(); err != nil {
			return nil, fmt.Errorf("%s: %w", idPath, err)
		}
		priv, err := pow.ReadKeyFile(keyPath)
		if err != nil {
			return nil, err
		}
		if err := id.CheckKey(priv); err != nil {
			return nil, fmt.Errorf("%s: %w", keyPath, err)
		}
		return &pow.Key{Identity: *id, Private: priv}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	k, _, err := pow.Mint(ctx, p, pow.MintOptions{Workers: 1})
	if err != nil {
		return nil, fmt.Errorf("minting an identity: %w", err)
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		if err := pow.WriteKeyFile(keyPath, k.Private); err != nil {
			return nil, err
		}
		if err := pow.WriteFile(idPath, &k.Identity); err != nil {
			return nil, err
		}
	}
	return &k, nil
}

// ForgeModes are the ways a dishonest node can present an identity, each of
// which an honest peer must refuse (for tests and demonstrations):
//
//	forged-id  claims the highest possible id, which is not H(its public key)
//	unsolved   claims 40 puzzle bits its id does not have
//	weak       an honest identity minted with no work, below the run's difficulty
//	stolen     another valid identity, without that identity's private key
var ForgeModes = []string{"forged-id", "unsolved", "weak", "stolen"}

// Forge returns the key a dishonest node signs with and the identity it
// shows, for one of ForgeModes; p is the run's puzzle.
func Forge(ctx context.Context, mode string, p pow.Params) (*pow.Key, *pow.Identity, error) {
	mintP := p
	if mode == "weak" {
		mintP.Bits = 0
	}
	k, _, err := pow.Mint(ctx, mintP, pow.MintOptions{Workers: 1})
	if err != nil {
		return nil, nil, err
	}
	show := k.Identity
	switch mode {
	case "forged-id":
		show.ID = nodes.ID{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	case "unsolved":
		show.Bits = 40
		if show.Verify() == nil {
			return nil, nil, errors.New("forge: the id happens to solve 40 bits; try again")
		}
	case "weak":
	case "stolen":
		other, _, err := pow.Mint(ctx, p, pow.MintOptions{Workers: 1})
		if err != nil {
			return nil, nil, err
		}
		show = other.Identity
	default:
		return nil, nil, fmt.Errorf("forge mode %q (known: %v)", mode, ForgeModes)
	}
	return &k, &show, nil
}

// MaxChallenge bounds the harness's challenge (NodeConfig.Challenge).
const MaxChallenge = 128

// ProveToHarness signs the harness's challenge with key for the identity
// shown, id: what lets the harness exclude a node whose key does not match
// the identity it shows on its own check, where a peer's refusal is only
// that peer's word (CheckHarnessProof).
func ProveToHarness(key *pow.Key, id nodes.ID, challenge string) []byte {
	return key.Sign(harnessTranscript(challenge, id))
}

// CheckHarnessProof reports whether proof is id's signature over the
// challenge the harness gave its process.
func CheckHarnessProof(id *pow.Identity, challenge string, proof []byte) error {
	if err := id.VerifySignature(harnessTranscript(challenge, id.ID), proof); err != nil {
		return fmt.Errorf("its signature over the harness's challenge does not verify under identity %s: %w", id.ID, err)
	}
	return nil
}

// harnessTranscript is what a node signs for the harness: a domain
// separator of its own (so that no handshake signature serves), the
// challenge and the id.
func harnessTranscript(challenge string, id nodes.ID) []byte {
	b := append([]byte("electbench/live/v2 harness\x00"), challenge...)
	s := id.Bytes()
	return append(append(b, 0), s[:]...)
}
