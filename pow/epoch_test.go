package pow

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// ALGORITHMS.md: "Ranking by H(id ‖ epoch nonce)".
func TestEpochRankIsHashOfIDAndNonce(t *testing.T) {
	id := nodes.ID{1, 2, 3, 4}
	b := id.Bytes()
	in := binary.BigEndian.AppendUint64(b[:], 99)
	if got, want := EpochRank(id, 99), nodes.IDFromBytes(sha256.Sum256(in)); got != want {
		t.Errorf("EpochRank = %v, want %v", got, want)
	}
}

// A new nonce reorders the ids: the highest id is the highest epoch rank in
// about 1/n of the epochs, not in all.
func TestEpochRankReorders(t *testing.T) {
	const n, epochs = 8, 4000
	var ids [n]nodes.ID
	for i := range ids {
		ids[i] = nodes.IDFromUint64(uint64(i + 1))
	}
	top := 0
	for e := range uint64(epochs) {
		best := 0
		for i := range ids {
			if EpochRank(ids[i], e).Compare(EpochRank(ids[best], e)) > 0 {
				best = i
			}
		}
		if best == n-1 {
			top++
		}
	}
	// Binomial(4000, 1/8): mean 500, sd 21.
	if top < 400 || top > 600 {
		t.Errorf("the highest id ranked first in %d of %d epochs, want about %d", top, epochs, epochs/n)
	}
}
