//go:build unix

package hostmem

import "syscall"

// addressSpaceLimit is the soft RLIMIT_AS (ulimit -v), and false when
// there is none (RLIM_INFINITY is all ones). A heap cannot grow past it: the Go runtime's reservations
// fail there, and the process dies with a runtime dump rather than an
// error, so the memory guard must count it as the limit it is.
func addressSpaceLimit() (int64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur > 1<<62 {
		return 0, false
	}
	return int64(r.Cur), true
}
