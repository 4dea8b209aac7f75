//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Self is the user and system CPU time this process has used, and false
// when the system would not say.
func Self() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
