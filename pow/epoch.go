package pow

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/electbench/electbench/nodes"
)

// EpochRank returns the rank of id in the epoch whose nonce is nonce:
// SHA-256(id ‖ nonce), the id as 32 big-endian bytes and the nonce as 8.
//
// Ranking by a nonce revealed after the identities are fixed denies grinding:
// however many ids an adversary minted in advance, the one it committed to has
// a uniform, unpredictable epoch rank (see Grind). The hash is SHA-256 whatever
// the identities' puzzle hash, because this one need not be costly, only
// unpredictable, and a simulator evaluates it for every node every epoch.
func EpochRank(id nodes.ID, nonce uint64) nodes.ID {
	var b [40]byte
	for i, w := range id {
		binary.BigEndian.PutUint64(b[8*i:], w)
	}
	binary.BigEndian.PutUint64(b[32:], nonce)
	return nodes.IDFromBytes(sha256.Sum256(b[:]))
}
