package workloads

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/electbench/electbench/internal/prefault"
	"github.com/electbench/electbench/nodes"
)

// IDs says how identities are placed on positions 0..N-1 (ring order: the
// successor of position i is i+1 mod N).
type IDs struct {
	Mode string   // random, ascending, descending, bit-reversal, anonymous, list, pow
	List []uint64 // the ids by position, for Mode "list"
	Pow  *powPool // for Mode "pow": minted identities (IDs.Prepare)
}

// ParseIDs reads --ids: random, ascending (ids increase in the direction of
// travel: the successor has the larger id), descending, bit-reversal (the
// ring of the Ω(N log N) lower bound, bitReversal), anonymous (every
// process id 1: the same rank), a list of distinct positive ids
// "5,1,4,2,3" by position, or pow(b[,hash]): minted identities.
func ParseIDs(s string) (IDs, error) {
	switch s = strings.TrimSpace(s); s {
	case "random", "ascending", "descending", "bit-reversal", "anonymous":
		return IDs{Mode: s}, nil
	}
	if ids, ok, err := parsePowIDs(s); ok {
		return ids, err
	}
	var list []uint64
	seen := map[uint64]int{}
	for i, part := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(part), 10, 64)
		if err != nil || v == 0 {
			return IDs{}, fmt.Errorf("--ids %q: want random, ascending, descending, bit-reversal, anonymous or a list of positive whole numbers; item %d is %q", s, i+1, strings.TrimSpace(part))
		}
		if j, dup := seen[v]; dup {
			return IDs{}, fmt.Errorf("--ids: id %d appears twice (items %d and %d)", v, j+1, i+1)
		}
		seen[v] = i
		list = append(list, v)
	}
	return IDs{Mode: "list", List: list}, nil
}

// String is the arrangement column's value.
func (a IDs) String() string {
	if a.Pow != nil {
		return a.Pow.text
	}
	return a.Mode
}

// Check reports whether the arrangement fits a cluster of n processes.
func (a IDs) Check(n int) error {
	if a.Mode == "list" && len(a.List) != n {
		return fmt.Errorf("--ids lists %d ids but --nodes asks for %d processes", len(a.List), n)
	}
	return nil
}

// numbers reports why the arrangement cannot give algorithm name, of
// synchronous rounds (nodes.ModelRounds), what it reads its ids as: small
// positive whole numbers, whose value sets when a process sends (random,
// ascending, descending: 1..N; a list). Minted identities and epoch ranks
// are not such numbers. How long the ids make the run is the plan guard's
// to judge (CheckPlan).
func (a IDs) numbers(name string, rank RankBy) error {
	if a.Mode == "anonymous" {
		return fmt.Errorf("--algo %s: this algorithm of synchronous rounds needs distinct ids, and --ids anonymous gives every process the same", name)
	}
	if a.Mode == "pow" || rank == RankByEpoch {
		return fmt.Errorf("--algo %s: this algorithm of synchronous rounds reads ids as small whole numbers (its time grows with the smallest); use --ids random, ascending, descending or a list such as 3,1,2, with --rank id", name)
	}
	return nil
}

// small reports whether Ranks holds this arrangement's ranks small
// (nodes.Ranks): the simulated arrangements, and lists that fit.
func (a IDs) small() bool {
	switch a.Mode {
	case "random", "ascending", "descending", "bit-reversal", "anonymous":
		return true
	case "list":
		return nodes.FitSmall(a.List...)
	}
	return false
}

// Ranks places n identities by position, drawing from seed for "random".
// Small identities are held as 4-byte numbers (nodes.Ranks): the random
// arrangement's ranks are its shuffle itself, ten million in 40 MB.
func (a IDs) Ranks(n int, seed uint64) nodes.Ranks {
	switch a.Mode {
	case "ascending", "descending":
		r := prefault.Make[uint32](n)
		for i := range r {
			r[i] = uint32(i + 1)
		}
		if a.Mode == "descending" {
			slices.Reverse(r)
		}
		return nodes.SmallRanks(r)
	case "bit-reversal":
		return nodes.SmallRanks(bitReversal(n))
	case "anonymous":
		// Every process the same (ALGORITHMS.md, "Anonymous rings"): the
		// checker then watches for symmetry (check.WatchSymmetry).
		r := prefault.Make[uint32](n)
		for i := range r {
			r[i] = 1
		}
		return nodes.SmallRanks(r)
	case "list":
		return nodes.RanksFrom(a.List...)
	case "pow":
		return a.powRanks(n, seed)
	}
	// random: a uniformly random permutation of 1..n
	return nodes.SmallRanks(shuffle(n, 1, rand.New(rand.NewPCG(seed, streamIDs))))
}

// bitReversal is the arrangement of the lower-bound proofs for
// comparison-based elections on asynchronous rings (Attiya & Welch, ch. 3;
// Frederickson & Lynch 1987): for N = 2^k the process at position i has
// id rev_k(i) + 1, i's k-bit index reversed, so that every stretch of the
// ring looks like every other of its length and LCR pays N·log₂N/2 + 2N
// messages (ALGORITHMS.md, `lcr`). For other N, ids 1..N go to the
// positions in the order of their reversed ⌈log₂N⌉-bit index: the same
// permutation on the positions that exist.
func bitReversal(n int) []uint32 {
	k := bits.Len(uint(max(n, 1) - 1))
	rev := func(i int) uint32 { return uint32(bits.Reverse64(uint64(i)) >> (64 - k)) }
	if k == 0 {
		rev = func(int) uint32 { return 0 }
	}
	pos := make([]int, n)
	for i := range pos {
		pos[i] = i
	}
	slices.SortFunc(pos, func(a, b int) int { return cmp.Compare(rev(a), rev(b)) })
	ids := prefault.Make[uint32](n)
	for id, p := range pos {
		ids[p] = uint32(id + 1)
	}
	return ids
}

// aheadFrom is the number of processes from which a simulated trial
// computes its reference figures on another goroutine during the run
// (figuresAhead): below it a goroutine costs more than the second core
// saves.
const aheadFrom = 1 << 16

// shuffleAhead is how many swaps shuffle draws before it makes them.
const shuffleAhead = 64

// shuffle returns rand.Perm(n)'s permutation of 0..n-1 drawn from src,
// plus base, on 4-byte numbers rather than 8-byte ones: the same permutation, in half the
// memory and its cache misses. The loop is Rand.Shuffle's own (Fisher–Yates
// drawing Uint64N(i+1) for i from n−1 down), written out so that a swap is
// not a call, and it draws shuffleAhead swaps at a time and reads the
// entries they will swap before making them: the draws do not depend on the
// entries, so those reads, each a cache miss on a large permutation (40 MB
// at ten million), overlap instead of coming one after another as the
// swaps need them. At ten million a swap takes about 30 ns rather than 55
// (BenchmarkShuffle).
func shuffle(n int, base uint32, src *rand.Rand) []uint32 {
	perm := prefault.Make[uint32](n)
	for i := range perm {
		perm[i] = base + uint32(i)
	}
	var js [shuffleAhead]uint32
	var touched uint32
	for i := n - 1; i > 0; {
		k := min(shuffleAhead, i) // swaps i, i−1, …, i−k+1
		for t := range k {
			js[t] = uint32(src.Uint64N(uint64(i - t + 1)))
		}
		for _, j := range js[:k] {
			touched += perm[j]
		}
		for t, j := range js[:k] {
			perm[i-t], perm[j] = perm[j], perm[i-t]
		}
		i -= k
	}
	shuffleSink.Store(touched)
	return perm
}

// shuffleSink keeps shuffle's early reads from being optimised away; it is
// atomic because trials shuffle in parallel.
var shuffleSink atomic.Uint32

// Initiators says which positions initiate at time 0.
type Initiators struct {
	Mode string // all, max, successor-of-max, lowest, random, list
	K    int    // for random(k)
	List []int  // positions, for list
	text string
}

// ParseInitiators reads --initiators: all, max (the would-be leader),
// successor-of-max, lowest, random(k), or a list of positions "0,3".
func ParseInitiators(s string) (Initiators, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "all", "max", "successor-of-max", "lowest":
		return Initiators{Mode: s, text: s}, nil
	}
	if inner, ok := strings.CutPrefix(s, "random("); ok && strings.HasSuffix(inner, ")") {
		k, err := strconv.Atoi(strings.TrimSuffix(inner, ")"))
		if err != nil || k < 1 {
			return Initiators{}, fmt.Errorf("--initiators %q: random(k) needs a whole number k ≥ 1", s)
		}
		return Initiators{Mode: "random", K: k, text: s}, nil
	}
	var list []int
	seen := map[int]bool{}
	for i, part := range strings.Split(s, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || p < 0 {
			return Initiators{}, fmt.Errorf("--initiators %q: want all, max, successor-of-max, lowest, random(k) or a list of positions from 0; item %d is %q", s, i+1, strings.TrimSpace(part))
		}
		if seen[p] {
			return Initiators{}, fmt.Errorf("--initiators: position %d listed twice", p)
		}
		seen[p] = true
		list = append(list, p)
	}
	return Initiators{Mode: "list", List: list, text: s}, nil
}

// String is the initiators column's value: the selection as given.
func (in Initiators) String() string { return in.text }

// Check reports whether the selection fits a cluster of n processes.
func (in Initiators) Check(n int) error {
	switch in.Mode {
	case "random":
		if in.K > n {
			return fmt.Errorf("--initiators random(%d): only %d processes", in.K, n)
		}
	case "list":
		for _, p := range in.List {
			if p >= n {
				return fmt.Errorf("--initiators: position %d is out of range 0..%d for %d processes", p, n-1, n)
			}
		}
	}
	return nil
}

// Positions returns the initiating positions, ascending, for the given ranks.
func (in Initiators) Positions(ranks nodes.Ranks, seed uint64) []int {
	n := ranks.Len()
	switch in.Mode {
	case "all":
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	case "max":
		return []int{ranks.Extreme(1, nil)}
	case "successor-of-max":
		return []int{(ranks.Extreme(1, nil) + 1) % n}
	case "lowest":
		return []int{ranks.Extreme(-1, nil)}
	case "random":
		src := rand.New(rand.NewPCG(seed, streamInitiators))
		out := src.Perm(n)[:in.K]
		slices.Sort(out)
		return out
	}
	out := slices.Clone(in.List)
	slices.Sort(out)
	return out
}

// ArrangementIDs gives the identities of a simulated trial's processes by
// position, as its decisions name leaders (nodes.Rank.String), from its
// row's arrangement column and seed: the same draw the trial made. ok is
// false where the column does not determine them: a list (the column keeps
// only "list"), minted identities (pow: minting costs seconds to hours)
// and anything this version cannot read. A live trial's nodes mint their
// own identities; ask only for simulated ones.
func ArrangementIDs(arrangement string, n int, seed uint64) (ids []string, ok bool) {
	rest, epoch := strings.CutSuffix(arrangement, RankByEpoch.suffix())
	a, err := ParseIDs(rest)
	if err != nil || a.Mode == "list" || a.Pow != nil || a.Check(n) != nil {
		return nil, false
	}
	by := RankByID
	if epoch {
		by = RankByEpoch
	}
	ranks := by.apply(a.Ranks(n, seed), seed)
	ids = make([]string, n)
	for i := range ids {
		ids[i] = ranks.At(i).String()
	}
	return ids, true
}
