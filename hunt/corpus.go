package hunt

import (
	"maps"
	"math"
	"slices"
	"time"
)

// corpus is a guided search's candidates kept for what they reached, and
// how often each is mutated: its power schedule (AFL; Böhme et al.,
// AFLFast, CCS 2016).
type corpus struct {
	// index numbers every state reached, in the order first reached;
	// hits counts, by that number, the candidates that reached it: the
	// power schedule reads it for each state of each entry at every
	// batch, a slice being many times cheaper to read than a map.
	index   map[uint64]int32
	hits    []int32
	entries []entry
	// weights are the entries' chances to be mutated, set at each batch's
	// start (the corpus and the counts change only between batches, and
	// a batch draws from the corpus as it stood at its start).
	weights []float64
	total   float64
	// best is the highest score a candidate reached (column properties);
	// scored is false before the first.
	best   float64
	scored bool
}

// entry is a corpus entry: a candidate, every state it reached, and when
// it reached the last one no earlier candidate had.
type entry struct {
	c        *candidate
	states   []int32 // by their number in the corpus's index
	frontier time.Duration
	score    float64
	scored   bool
	picked   int // times mutated
}

// maxCorpus bounds the candidates kept; the oldest make way.
const maxCorpus = 512

// consider counts the states candidate c reached and keeps c when it
// reached one no earlier candidate did, or raised the best score (a
// column property's gradient). uniform counts without keeping.
func (k *corpus) consider(c *candidate, r result, uniform bool) {
	var frontier, last time.Duration
	fresh := false
	// The states in the order of their hashes, not the map's, which is
	// random: the numbers given to new states, and so the order of the
	// weights' sums, must depend on the seed alone.
	hashes := slices.Sorted(maps.Keys(r.states))
	states := make([]int32, 0, len(hashes))
	for _, s := range hashes {
		at := r.states[s]
		i, ok := k.index[s]
		if !ok {
			i = int32(len(k.hits))
			k.index[s] = i
			k.hits = append(k.hits, 0)
			fresh = true
			frontier = max(frontier, at)
		}
		k.hits[i]++
		states = append(states, i)
		last = max(last, at)
	}
	better := r.scored && (!k.scored || r.score > k.best)
	if better {
		k.best, k.scored = r.score, true
	}
	if uniform || !fresh && !better {
		return
	}
	if !fresh {
		// A better score without a new state: the trial's last change of
		// state is where the mutations that extend it start.
		frontier = last
	}
	slices.Sort(states)
	if len(k.entries) == maxCorpus {
		k.entries = k.entries[1:]
	}
	k.entries = append(k.entries, entry{c: c, states: states, frontier: frontier, score: r.score, scored: r.scored})
}

// weigh sets the entries' weights from how rare their states are now: an
// entry's weight is the sum over the states it reached of one over the
// candidates that reached each, so that the search spends its mutations
// near the states it has seen least and stops rewarding an early entry
// for states every later candidate reaches too (AFLFast's favouring of
// rare paths). The entries at the best score take as much again between
// them: half the mutations climb the property's gradient.
func (k *corpus) weigh() {
	k.weights, k.total = k.weights[:0], 0
	var top []int
	for i, e := range k.entries {
		w := 0.0
		for _, s := range e.states {
			w += 1 / float64(k.hits[s])
		}
		w /= math.Sqrt(float64(1 + e.picked))
		k.weights = append(k.weights, w)
		k.total += w
		if e.scored && e.score == k.best {
			top = append(top, i)
		}
	}
	if len(top) > 0 {
		share := k.total / float64(len(top))
		for _, i := range top {
			k.weights[i] += share
		}
		k.total *= 2
	}
}

// mutate picks an entry by weight and mutates it: half the time keeping
// its schedule up to its frontier and adding a fault after it (the way to
// its new state is kept, what follows perturbed: ModelFuzz), otherwise
// anywhere.
func (k *corpus) mutate(g *generator) *candidate {
	x := g.r.Float64() * k.total
	i := 0
	for i < len(k.entries)-1 && x >= k.weights[i] {
		x -= k.weights[i]
		i++
	}
	e := &k.entries[i]
	e.picked++
	if g.r.IntN(2) == 0 {
		if c := g.extend(e.c, e.frontier); c != nil {
			return c
		}
	}
	return g.mutate(e.c)
}
