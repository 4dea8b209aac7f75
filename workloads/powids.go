package workloads

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/pow"
)

// parsePowIDs reads "pow(b)" or "pow(b,hash)": simulated processes get real
// minted identities (ALGORITHMS.md, "Identities"), b static puzzle bits.
func parsePowIDs(s string) (IDs, bool, error) {
	inner, ok := strings.CutPrefix(s, "pow(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return IDs{}, false, nil
	}
	args := strings.Split(strings.TrimSuffix(inner, ")"), ",")
	b, err := strconv.Atoi(strings.TrimSpace(args[0]))
	if err != nil || b < 0 || b > 32 {
		return IDs{}, true, fmt.Errorf("--ids %q: pow(b) needs 0 ≤ b ≤ 32 puzzle bits", s)
	}
	p := pow.Params{Hash: pow.SHA256, Iterations: 1, Bits: b}
	if len(args) > 2 {
		return IDs{}, true, fmt.Errorf("--ids %q: want pow(b) or pow(b,hash)", s)
	}
	if len(args) == 2 {
		if p.Hash, err = pow.ParseHash(strings.TrimSpace(args[1])); err != nil {
			return IDs{}, true, fmt.Errorf("--ids %q: %w", s, err)
		}
		if p.Hash == pow.Argon2id {
			p.Argon2 = pow.DefaultArgon2()
		}
	}
	if err := p.Validate(); err != nil {
		return IDs{}, true, fmt.Errorf("--ids %q: %w", s, err)
	}
	return IDs{Mode: "pow", Pow: &powPool{params: p, text: s}}, true, nil
}

// powPool holds the minted identities a run draws from.
type powPool struct {
	params pow.Params
	text   string
	ids    []nodes.ID
}

// PowParams returns the puzzle of a pow arrangement.
func (a IDs) PowParams() (pow.Params, bool) {
	if a.Pow == nil {
		return pow.Params{}, false
	}
	return a.Pow.params, true
}

// Prepare mints (or loads from the cache) the identities an arrangement
// needs for clusters of up to n processes. Only pow arrangements need it.
func (a IDs) Prepare(ctx context.Context, n int, o pow.CacheOptions) error {
	if a.Pow == nil || len(a.Pow.ids) >= n {
		return nil
	}
	ids, err := pow.Identities(ctx, a.Pow.params, n, o)
	if err != nil {
		return fmt.Errorf("--ids %s: %w", a.Pow.text, err)
	}
	a.Pow.ids = a.Pow.ids[:0]
	for _, id := range ids {
		a.Pow.ids = append(a.Pow.ids, id.ID)
	}
	return nil
}

// powRanks places the first n minted identities at random positions.
func (a IDs) powRanks(n int, seed uint64) nodes.Ranks {
	if len(a.Pow.ids) < n {
		panic(fmt.Sprintf("workloads: %d minted identities prepared, %d needed (call IDs.Prepare)", len(a.Pow.ids), n))
	}
	src := rand.New(rand.NewPCG(seed, streamIDs))
	r := make([]nodes.Rank, n)
	for i, j := range shuffle(n, 0, src) { // rand.Perm's permutation (IDs.Ranks)
		r[i] = nodes.Rank{ID: a.Pow.ids[j]}
	}
	return nodes.RanksOf(r)
}

// RankBy says what processes are ranked by: their identity, or H(id ‖ epoch
// nonce) with a nonce drawn per trial after identities are fixed, which
// leaves a grinding adversary no precomputation (ALGORITHMS.md).
type RankBy string

const (
	RankByID    RankBy = "id"
	RankByEpoch RankBy = "epoch"
)

// ParseRankBy reads --rank.
func ParseRankBy(s string) (RankBy, error) {
	switch RankBy(s) {
	case RankByID, RankByEpoch:
		return RankBy(s), nil
	}
	return "", fmt.Errorf("--rank %q: want id or epoch", s)
}

// apply re-ranks by epoch when asked; the nonce comes from the trial seed.
func (r RankBy) apply(ranks nodes.Ranks, seed uint64) nodes.Ranks {
	if r != RankByEpoch {
		return ranks
	}
	nonce := trial.Mix(seed ^ streamEpoch)
	out := make([]nodes.Rank, ranks.Len())
	for i := range out {
		x := ranks.At(i)
		out[i] = nodes.Rank{Attr: x.Attr, ID: pow.EpochRank(x.ID, nonce)}
	}
	return nodes.RanksOf(out)
}

// suffix marks epoch ranking in the arrangement column.
func (r RankBy) suffix() string {
	if r == RankByEpoch {
		return "+epoch"
	}
	return ""
}
