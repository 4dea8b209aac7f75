package hugepages

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Size is the huge page size advised for (x86-64 and arm64 Linux with 4 KB
// base pages).
const Size = 2 << 20

// MinBytes is the least array Advise advises on: below it, the pages an
// array fills whole are too few to matter.
const MinBytes = 4 * Size

// Advise asks that the memory of s, as far as it fills whole huge pages,
// be backed by huge pages, and then faults every page of s in with a write
// that keeps what it holds (fault). Call it on an array just made, before
// it is written: memory already touched keeps its small pages until the
// kernel gathers them in the background. It never fails: the advice is
// dropped where the kernel refuses it.
func Advise[T any](s []T) {
	var zero T
	size := uintptr(len(s)) * unsafe.Sizeof(zero)
	if size < MinBytes {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(s))
	if from, n := whole(uintptr(base), size); n > 0 {
		advise(unsafe.Slice((*byte)(unsafe.Add(base, from)), n))
	}
	fault(base, size)
}

// pageSize is the smallest page fault touches one word of.
const pageSize = 4096

// fault makes every page of the size bytes at base present, by a write to
// each that changes nothing, unless size is below MinBytes.
//
// Why a write: Go does not write a large array it takes fresh from the
// operating system, and the first access to such a page decides what it
// costs. A first write faults in a cleared page (a huge one, 2 MB cleared
// at once, where advised). A first read maps the kernel's shared zero page
// instead, and the write that follows must replace that mapping: another
// fault, and a flush of the translation caches of every core the program
// runs on, an interrupt to each. The garbage collector is such a reader: it
// scans an array of machines that hold a pointer before the machines'
// Start writes them (seen in a kernel profile of a ten-million process
// ring: three fifths of its page-clearing time came through that second
// fault).
// Measured on a 2-core virtual machine, whole process, 8 runs each in
// alternation: with 3 s between runs, when the host must back the memory
// afresh, the ring took 3.02 s (median) rather than 3.29; back to back,
// 2.44 s either way, with one run in 8 spending 1.2 s in the kernel
// rather than 0.2 without the change.
//
// The write is an atomic add of zero to a 4-byte word at each page
// boundary inside the array: a read-modify-write faults as a write, keeps the
// word whatever it holds, and is safe beside a goroutine writing it.
//
// From halvesFrom bytes on, the two halves fault at once, one on another
// goroutine: the kernel's work, clearing the pages, then takes two cores.
func fault(base unsafe.Pointer, size uintptr) {
	if size < MinBytes {
		return
	}
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

// halvesFrom is the size from which fault splits its work: 64 MB take
// about 14 ms to fault in, well above the cost of a goroutine.
const halvesFrom = 64 << 20

// touch adds zero to the word at base+off for every page-aligned off from
// from (aligned) while the word lies below end.
func touch(base unsafe.Pointer, from, end uintptr) {
	for off := from; off+4 <= end; off += pageSize {
		atomic.AddUint32((*uint32)(unsafe.Add(base, off)), 0)
	}
}

// whole returns the whole huge pages within size bytes at address start:
// from the offset of the first, n bytes (0: none).
func whole(start, size uintptr) (from, n uintptr) {
	lo := (start + Size - 1) &^ (Size - 1) // the first huge page boundary in the array
	hi := (start + size) &^ (Size - 1)     // the last
	if hi <= lo {
		return 0, 0
	}
	return lo - start, hi - lo
}
