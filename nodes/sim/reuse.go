package sim

import "sync"

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
