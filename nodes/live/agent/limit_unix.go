//go:build unix

package agent

import (
	"math"
	"syscall"
)

// descriptorLimit is this agent's limit on open files, which the
// Toxiproxy server it starts has too (a Go program raises its soft limit
// to the hard one at start-up, as this agent did), clamped to a frame's
// code; 0 if unknown. The controller checks a host's proxies against it.
func descriptorLimit() int32 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return int32(min(uint64(r.Cur), math.MaxInt32)) // int64 on the BSDs
}
