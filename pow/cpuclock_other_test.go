//go:build !linux

package pow

import "time"

// benchClock falls back to wall time.
func benchClock() (now func() time.Duration, release func()) {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }, func() {}
}
