package prefault

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"
)

// MinBytes is the least array Touch touches: below it, the pages an array
// fills are too few to matter.
const MinBytes = 8 << 20

// pageSize is the smallest page Touch writes one word of.
const pageSize = 4096

// Touch makes every page of s present, by a write to each that changes
// nothing, unless s is smaller than MinBytes. Call it on an array just
// made, before it is read; from halvesFrom bytes on, the two halves are
// faulted in at once, one on another goroutine.
//
// Why a write: the first access to a fresh page decides what it costs. A
// first write faults in a cleared page. A first read maps the kernel's
// shared zero page instead, and the write that follows must replace that
// mapping: another fault, and a flush of the translation caches of every
// core the program runs on, an interrupt to each. The garbage collector is
// such a reader: it scans an array of machines that hold a pointer before
// the machines' Start writes them (seen in a kernel profile of a
// ten-million process ring: three fifths of its page-clearing time came
// through that second fault).
//
// The write is an atomic add of zero to a 4-byte word at each page
// boundary inside the array: a read-modify-write faults as a write, keeps
// the word whatever it holds, and is safe beside a goroutine writing it.
func Touch[T any](s []T) {
	var zero T
	size := uintptr(len(s)) * unsafe.Sizeof(zero)
	if size < MinBytes {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(s))
	first := (pageSize - uintptr(base)%pageSize) % pageSize
	if size < halvesFrom {
		touch(base, first, size)
		return
	}
	mid := first + (size-first)/2/pageSize*pageSize
	var wg sync.WaitGroup
	wg.Go(func() { touch(base, mid, size) })
	touch(base, first, mid)
	wg.Wait()
}

// halvesFrom is the size from which Touch splits its work: 64 MB take
// about 30 ms to fault in with 4 KB pages, far above the cost of a
// goroutine.
const halvesFrom = 64 << 20

// touch adds zero to the word at base+off for every page-aligned off from
// from (aligned) while the word lies below end.
func touch(base unsafe.Pointer, from, end uintptr) {
	for off := from; off+4 <= end; off += pageSize {
		atomic.AddUint32((*uint32)(unsafe.Add(base, off)), 0)
	}
}

// Make returns make([]T, n) with its pages present (Touch). A large
// allocation is what starts a garbage collection, and the collection's
// first pass scans an array of a type that holds pointers, reading every
// page of it before Touch can write them: the reads map the zero page and
// Touch's writes then fault a second time, each with a flush of every
// core's translation caches (a tenth of a ten-million ring's run when the
// ranks before it were small). So from MinBytes on, Make holds collection
// off between the allocation and the touch; one that is due starts when
// the pages are present. Make holds collection off for the whole program,
// so calls are serialised (gcOff).
func Make[T any](n int) []T {
	var zero T
	if uintptr(n)*unsafe.Sizeof(zero) < MinBytes {
		return make([]T, n)
	}
	gcOff.Lock()
	defer gcOff.Unlock()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	s := make([]T, n)
	Touch(s)
	return s
}

// gcOff serialises Make's changes of the collection percentage, so that
// each restores the value it found.
var gcOff sync.Mutex
