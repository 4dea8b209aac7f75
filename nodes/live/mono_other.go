//go:build !linux

package live

import "time"

// Mono reads the wall clock in nanoseconds where no host-wide monotonic clock
// is at hand: processes on one host agree on it except across clock steps.
func Mono() int64 { return time.Now().UnixNano() }
