package pow

import (
	"time"

	"github.com/electbench/electbench/internal/cputime"
)

var processStart = time.Now()

// cpuTime is the CPU time (user and system) this process has used, or,
// where the system does not give it, the wall time since start.
func cpuTime() time.Duration {
	if d, ok := cputime.Self(); ok {
		return d
	}
	return time.Since(processStart)
}
