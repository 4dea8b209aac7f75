//go:build unix

package harness

import "syscall"

// fdLimit is the process's soft limit on open files (Go raises it to the
// hard limit at start-up where it can); a variable for tests.
var fdLimit = func() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	return uint64(r.Cur), true // int64 on the BSDs
}
