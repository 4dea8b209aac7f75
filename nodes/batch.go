package nodes

import (
	"unsafe"

	"github.com/electbench/electbench/internal/prefault"
)

// Batch is how a runtime that makes a whole run's machines at set-up (the
// simulator: N of them, one after another in position order) learns that a
// constructor put them in one allocation. The runtime passes an empty Batch
// in Config.Batch; a constructor of Batched fills it in when New is called,
// and its next N machines are then the elements of one array, in order. The
// runtime may keep one pointer to the array and compute each machine from
// its position instead of holding a word per process (ten million words,
// each one for the garbage collector to follow). The machines are the ones
// the constructor makes without a Batch, only allocated together. Other
// constructors leave it empty.
type Batch struct {
	first  Machine // the array's first element
	stride uintptr // bytes from one element to the next
	n      int     // elements
	take   func()  // hands the n elements out at once (Take)
}

// Take hands the array's machines out at once, as the constructor's next n
// calls would, one by one (ten million calls cost a ten-million ring 0.1 s
// of set-up): the runtime then takes the array's elements for its first n
// machines, and the constructor's next call makes a machine after them.
// A no-op when the constructor noted no array, or once taken.
func (b *Batch) Take() {
	if b != nil && b.take != nil {
		b.take()
		b.take = nil
	}
}

// Layout returns the array a constructor noted: its first machine, the
// distance in bytes from one machine's data word to the next's, and how
// many machines it holds (0 if the constructor noted none). Only the next
// n machines made after New returned lie in it.
func (b *Batch) Layout() (first Machine, stride uintptr, n int) {
	if b == nil {
		return nil, 0, 0
	}
	return b.first, b.stride, b.n
}

// Batched returns a constructor of machines of type T (as an Algorithm's
// New returns one). Given a Batch (cfg.Batch), its first cfg.N machines are
// the elements of one array, allocated at once, and the Batch says so;
// after those, and without a Batch, it allocates them in batches of up to
// 4,096, doubling from one: a simulated run of ten million processes makes
// one allocation or a few thousand instead of ten million, and its machines
// lie together in memory in position order. A batch lives as long as any
// of its machines. Like every constructor New returns, it belongs to one
// run and is not safe for concurrent use.
func Batched[T any, PT interface {
	*T
	Machine
}](cfg Config) func() Machine {
	var batch []T
	size := 1
	if cfg.Batch != nil && cfg.N > 0 {
		batch = prefault.Make[T](cfg.N)
		n := cfg.N
		*cfg.Batch = Batch{first: PT(&batch[0]), stride: unsafe.Sizeof(batch[0]), n: n, take: func() { batch = batch[n:] }}
	}
	return func() Machine {
		if len(batch) == 0 {
			batch = make([]T, size)
			size = min(2*size, 4096)
		}
		m := PT(&batch[0])
		batch = batch[1:]
		return m
	}
}
