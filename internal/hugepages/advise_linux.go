package hugepages

import "syscall"

// advise tells the kernel that b, aligned to huge pages, may use them.
func advise(b []byte) { _ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) }
