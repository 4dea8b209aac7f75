//go:build !unix

package etcdraft

import "time"

// cpuTime is unknown here; the benchmark reports no CPU figure.
func cpuTime() time.Duration { return 0 }
