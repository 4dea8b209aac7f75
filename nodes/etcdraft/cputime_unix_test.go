//go:build unix

package etcdraft

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: on a
// shared machine a steadier measure of work than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
