package hugepages

import (
	"syscall"
	"testing"
	"unsafe"
)

// BenchmarkFill fills 400 MB of fresh memory, the ranks of ten million
// processes, with and without the advice: with huge pages the kernel
// faults it in 2 MB at a time rather than 4 KB. The memory is mapped afresh
// for every fill, as a run's set-up finds it, not reused from the heap.
func BenchmarkFill(b *testing.B) {
	const size = 400 << 20
	for _, advised := range []bool{true, false} {
		name := "advised"
		if !advised {
			name = "small-pages"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				s := unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), size/8)
				if advised {
					Advise(s)
				}
				for i := range s {
					s[i] = uint64(i)
				}
				if err := syscall.Munmap(mem); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(size>>20), "ns/MB")
		})
	}
}
