//go:build !unix

package pow

import "time"

var processStart = time.Now()

// cpuTime falls back to wall time where the process's CPU time is not at hand.
func cpuTime() time.Duration { return time.Since(processStart) }
