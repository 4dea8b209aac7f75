package etcdraft

import (
	"time"

	"github.com/electbench/electbench/internal/cputime"
)

// cpuTime is the CPU time (user and system) the process has used: on a
// shared machine a steadier measure of work than the wall clock; 0 where
// the system does not say.
func cpuTime() time.Duration {
	d, _ := cputime.Self()
	return d
}
