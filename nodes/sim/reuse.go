package sim

import (
	"math/rand/v2"
	"sync"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// reuseChunks is the most chunks a finished trial's slab may hand on to
// the next trial: a sweep's small trials fit in one, while a big trial's
// slab is left to the collector rather than kept for ever.
const reuseChunks = 4

// slabs holds the slabs of finished trials for the next ones. A trial of
// 5 processes and a hundred events otherwise allocates a fresh chunk
// (about 160 KB, cleared) for its first event: at 10,000 trials that was
// 1.6 GB of allocation, most of a sweep's garbage collections (issue 42).
var slabs sync.Pool

// takeSlab returns an empty slab, with the chunks of a finished trial's
// when one is kept. A reused payload holds what its last event left:
// every caller of alloc fills in what it reads, as it does already for a
// slot reused within a trial.
func takeSlab() slab {
	if b, ok := slabs.Get().(*slab); ok {
		return *b
	}
	return slab{}
}

// recycleSlab hands b's chunks on to a later trial, emptied; b is not
// used again.
func recycleSlab(b *slab) {
	if len(b.chunks) == 0 || len(b.chunks) > reuseChunks {
		return
	}
	slabs.Put(&slab{chunks: b.chunks}) // no slot used, none free: alloc hands them out in order
}

// spare is what a finished trial leaves the next one of its worker: the
// simulator's state (3.3 KB, zeroed), its radix heap emptied (1.6 KB and
// the buckets' arrays) and its timer and link maps cleared. A trial of 5
// processes allocated all of them afresh, about half its garbage (issue
// 42).
type spare struct {
	sim      *sim
	radix    *radix  // nil when the trial ended on another queue
	sorted   *sorted // nil when the trial ended on another queue
	timers   map[uint64]timerState
	linkLast map[uint64]int64
	counts   []int64 // the record's counts (trial.NewRecordIn)
	timerTab []timerState
	// The random streams of a worker's trials without draws, reseeded at
	// each (trial.SeedNet, trial.SeedProcess): two allocations a stream,
	// a dozen of a raft trial's 121 at N = 5 (issue 42).
	net   randStream
	procs []*randStream // by position, up to spareStreams
	kept  kept
}

// kept is a small trial's arrays by process (smallRows processes at most)
// and the few others made once a trial, handed to the next trial of the
// worker, which empties them as it takes them (reuse): six of a raft
// trial's 91 allocations at N = 5 (issue 42). Each is the trial's own
// from when it takes it to its recycle.
type kept struct {
	peers   []nodes.Peer
	rows    [][]int64 // linkRows
	links   []int64   // the rows' one array
	kinds   []uint8   // sendKinds
	rands   []*rand.Rand
	stable  [][]byte // by process, each emptied: its array too is kept
	actions []func()
	full    []nodes.Rank // the ranks built whole (wholeRanks)
}

// wholeRanks is r.Slice() for a trial whose ranks are held small, in the
// array the worker's earlier trials built theirs in when r is small
// (smallRows): five ranks made afresh were 0.7% of a raft trial's CPU at
// N = 5 (issue 42). The trial reads them by value only (rank), and they
// are its own until its recycle.
func (k *kept) wholeRanks(r *nodes.Ranks) []nodes.Rank {
	ids, small := r.Small()
	if !small || len(ids) > smallRows {
		return r.Slice()
	}
	k.full = reuse(k.full, len(ids))
	for i, v := range ids {
		k.full[i] = nodes.RankOf(uint64(v))
	}
	return k.full
}

// keep takes s's arrays into k, emptied of what the trial left in them
// that points elsewhere, when s is small (smallRows).
func (k *kept) keep(s *sim) {
	if s.n > smallRows {
		return
	}
	k.peers = keepIf(k.peers, s.peers)
	k.rows = keepIf(k.rows, s.linkRows)
	k.kinds = keepIf(k.kinds, s.sendKinds)
	k.rands = keepIf(k.rands, s.rands)
	if s.stable != nil {
		for i := range s.stable {
			if cap(s.stable[i]) > spareStable {
				s.stable[i] = nil
			}
			s.stable[i] = s.stable[i][:0]
		}
		k.stable = s.stable
	}
	if s.actions != nil {
		clear(s.actions) // closures over the trial
		k.actions = nil
		if cap(s.actions) <= spareBucket {
			k.actions = s.actions[:0]
		}
	}
}

// keepIf is b when the trial made it (not nil), else was: a trial that
// made no array of a kind leaves the earlier one kept.
func keepIf[T any](was, b []T) []T {
	if b == nil {
		return was
	}
	return b
}

// reuse returns b's array emptied to n zero elements, or a new one when
// it holds fewer.
func reuse[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// randStream is a random stream kept across trials: its generator and the
// rand.Rand drawing from it.
type randStream struct {
	src rand.PCG
	r   *rand.Rand
}

// spareStreams bounds the process streams a spare keeps.
const spareStreams = 1 << 10

// netRand is the network's stream of the trial of cfg: the spare's,
// reseeded, without draws to replay or record (trial.NetRand).
func (sp *spare) netRand(cfg *trial.Config) *rand.Rand {
	if cfg.Draws != nil || cfg.Record != nil {
		return trial.NetRand(cfg.Seed, cfg.Draws, cfg.Record)
	}
	if sp.net.r == nil {
		sp.net.r = rand.New(&sp.net.src)
	}
	trial.SeedNet(&sp.net.src, cfg.Seed)
	return sp.net.r
}

// procRand is process p's stream of a trial of seed seed without draws
// (trial.ProcessRand): the spare's, reseeded; p < spareStreams.
func (sp *spare) procRand(p int, seed uint64) *rand.Rand {
	for len(sp.procs) <= p {
		st := new(randStream)
		st.r = rand.New(&st.src)
		sp.procs = append(sp.procs, st)
	}
	st := sp.procs[p]
	trial.SeedProcess(&st.src, seed, p)
	return st.r
}

// spares holds the spares of finished trials.
var spares sync.Pool

// Bounds on what a spare keeps: a big trial's queue and maps are left to
// the collector rather than held for ever by a pool of small trials.
const (
	spareBucket = 1 << 12 // entries of one radix bucket
	spareMap    = 1 << 10 // entries of a map
	spareStable = 1 << 10 // bytes of a process's stable store
)

// takeSpare returns a spare: a finished trial's, or a new one.
func takeSpare() *spare {
	if sp, ok := spares.Get().(*spare); ok {
		return sp
	}
	return &spare{sim: new(sim), timers: map[uint64]timerState{}, linkLast: map[uint64]int64{}}
}

// recycle hands s's state on to a later trial once s's run is over and
// its record copied out: s is zeroed, so that the pool holds nothing of
// the trial (its machines, its configuration), and must not be used
// again.
func (s *sim) recycle() {
	sp := s.spare
	if sp == nil {
		return
	}
	switch q := s.heap.(type) {
	case *radix:
		q.empty()
		sp.radix = q
	case *sorted: // taken from the spare (takeSorted), its radix heap left there
		if q.big == nil {
			*q = sorted{e: q.e[:0]}
			sp.sorted = q
		}
	default: // the wheel, which the spare's radix heap, if taken, was emptied into
		sp.radix = nil
	}
	sp.timers, sp.linkLast, sp.timerTab = s.timers, s.linkLast, s.timerTab
	sp.kept.keep(s)
	if len(sp.timers) > spareMap {
		sp.timers = map[uint64]timerState{}
	}
	if len(sp.linkLast) > spareMap {
		sp.linkLast = map[uint64]int64{}
	}
	clear(sp.timers)
	clear(sp.linkLast)
	*s = sim{}
	spares.Put(sp)
}

// takeSorted returns the spare's sorted queue, empty, or a new one; the
// spare keeps it no longer.
func (sp *spare) takeSorted() *sorted {
	q := sp.sorted
	if q == nil {
		return &sorted{}
	}
	sp.sorted = nil
	return q
}

// empty makes r a new radix heap, keeping its buckets' arrays up to
// spareBucket entries.
func (r *radix) empty() {
	for i := range r.buckets {
		if cap(r.buckets[i]) > spareBucket {
			r.buckets[i] = nil
		}
		r.buckets[i] = r.buckets[i][:0]
	}
	if cap(r.now.e) > spareBucket {
		r.now.e = nil
	}
	r.now.e = r.now.e[:0]
	r.last, r.n, r.full, r.warm = 0, 0, 0, nil
}
