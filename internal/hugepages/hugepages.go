package hugepages

import "unsafe"

// Size is the huge page size advised for (x86-64 and arm64 Linux with 4 KB
// base pages).
const Size = 2 << 20

// MinBytes is the least array Advise advises on: below it, the pages an
// array fills whole are too few to matter.
const MinBytes = 4 * Size

// Advise asks that the memory of s, as far as it fills whole huge pages,
// be backed by huge pages. Call it on an array just made, before it is
// written: memory already touched keeps its small pages until the kernel
// gathers them in the background. It never fails: the advice is dropped
// where the kernel refuses it.
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
