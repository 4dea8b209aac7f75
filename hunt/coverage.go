package hunt

import (
	"math/bits"
	"slices"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// coverage is a trial.Sink that abstracts a trial's state after each
// event that changes it and keeps the hash of every abstract state
// reached: coverage in the sense of ModelFuzz and Antithesis, which
// guides the search towards schedules that reach states it has not seen.
//
// The abstract state forgets positions and ranks, so that the same story
// on another cluster, or with other identities, is the same state: the
// multiset of the processes' (alive, phase, belief) — belief being no
// leader, itself, a higher or a lower process: who believes whom, in
// relative terms — with the number of processes that believe they lead,
// and for quorum algorithms the bucket of the highest term seen (log2:
// term growth, not its exact value).
type coverage struct {
	ranks  nodes.Ranks
	alive  []bool
	phase  []string
	belief []int8 // beliefNone, or Ranks.CmpTo's sign of the leader against self, +2
	term   int64  // highest term (Message.A) seen, quorum algorithms only
	kinds  trial.Kinds
	now    time.Duration // the time of the event being taken in
	// states maps each state reached to when it was first reached: a
	// mutation that keeps the schedule before the moment a candidate
	// reached its last new state keeps the way there.
	states  map[uint64]time.Duration
	scratch []uint64
}

const beliefNone = 0 // 1: a lower leader, 2: itself, 3: a higher one

func newCoverage(cfg *trial.Config) *coverage {
	n := cfg.Ranks.Len()
	c := &coverage{ranks: cfg.Ranks, alive: make([]bool, n), phase: make([]string, n), belief: make([]int8, n),
		states: map[uint64]time.Duration{}, scratch: make([]uint64, n)}
	for i := range c.alive {
		c.alive[i] = true
	}
	c.kinds = trial.KindsOf(trial.EvPhase, trial.EvDecide, trial.EvCrash, trial.EvRestart)
	if cfg.Algorithm.Quorum != nil {
		c.kinds |= trial.KindsOf(trial.EvSend)
	}
	c.record()
	return c
}

func (c *coverage) Kinds() trial.Kinds { return c.kinds }

// ReadsRanks: a decision's leader is compared with the ranks.
func (c *coverage) ReadsRanks() bool { return true }

func (c *coverage) Event(e *trial.Event) {
	p := int(e.P)
	c.now = e.At
	switch e.Kind {
	case trial.EvPhase:
		if c.phase[p] == e.Phase {
			return
		}
		c.phase[p] = e.Phase
	case trial.EvDecide:
		b := int8(c.ranks.CmpTo(p, &e.Leader)*-1 + 2)
		if c.belief[p] == b {
			return
		}
		c.belief[p] = b
	case trial.EvCrash:
		c.alive[p], c.belief[p], c.phase[p] = false, beliefNone, ""
	case trial.EvRestart:
		c.alive[p], c.belief[p], c.phase[p] = true, beliefNone, "" // a fresh machine
	case trial.EvSend:
		if e.Msg.A <= c.term {
			return
		}
		old := c.term
		c.term = e.Msg.A
		if bits.Len64(uint64(old)) == bits.Len64(uint64(c.term)) {
			return
		}
	default:
		return
	}
	c.record()
}

// record adds the abstract state now to the states reached: the
// processes' tuples as a multiset whose counts are bucketed (one, two, a
// minority, a majority), so that the same story on another cluster size
// is the same state. The hash is FNV-1a, keyed by nothing: the same state
// hashes the same in every process, so that a search's coverage, and what
// it keeps, depends on its seed alone.
func (c *coverage) record() {
	leaders := 0
	for i := range c.alive {
		h := fnv(fnvOffset, uint64(c.belief[i]))
		if c.alive[i] {
			h = fnv(h, 1)
		}
		for j := 0; j < len(c.phase[i]); j++ {
			h = fnv(h, uint64(c.phase[i][j]))
		}
		c.scratch[i] = h
		if c.alive[i] && c.belief[i] == 2 {
			leaders++
		}
	}
	slices.Sort(c.scratch)
	n := len(c.scratch)
	h := uint64(fnvOffset)
	for i := 0; i < n; {
		j := i
		for j < n && c.scratch[j] == c.scratch[i] {
			j++
		}
		h = fnv(fnv(h, c.scratch[i]), bucket(j-i, n))
		i = j
	}
	h = fnv(fnv(h, bucket(leaders, n)), uint64(bits.Len64(uint64(c.term))))
	if _, ok := c.states[h]; !ok {
		c.states[h] = c.now
	}
}

// bucket abstracts a count k of n processes: none, one, two, a minority,
// a majority.
func bucket(k, n int) uint64 {
	switch {
	case k <= 2:
		return uint64(k)
	case 2*k <= n:
		return 3
	}
	return 4
}

const fnvOffset, fnvPrime = 14695981039346656037, 1099511628211

// fnv mixes the eight bytes of x into h, FNV-1a.
func fnv(h, x uint64) uint64 {
	for range 8 {
		h = (h ^ x&0xff) * fnvPrime
		x >>= 8
	}
	return h
}

// aliveCount is how many processes are up now (at the end of a trial:
// at its end).
func (c *coverage) aliveCount() int {
	n := 0
	for _, a := range c.alive {
		if a {
			n++
		}
	}
	return n
}
