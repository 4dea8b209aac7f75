//go:build linux

package pow

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// benchClock returns a clock of the calling thread's CPU time, and a function
// to release the thread: comparing two loops by the CPU time each took keeps
// other processes on a shared machine out of the ratio.
func benchClock() (now func() time.Duration, release func()) {
	runtime.LockOSThread()
	return func() time.Duration {
		const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
		var ts syscall.Timespec
		syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
		return time.Duration(ts.Nano())
	}, runtime.UnlockOSThread
}
