//go:build !linux

package external

import (
	"os"
	"time"
)

// strays finds nothing without /proc: on this system a program's child
// that leaves its process group with setsid() can outlive the run.
func strays(root int, pipes []uint64) []int { return nil }

// inode is unknown without /proc.
func inode(f *os.File) uint64 { return 0 }

// gone is unknown without /proc: a process is taken as ended once killed.
func gone(pid int) bool { return true }

// group is unknown without /proc.
func group(pgid int) []int { return nil }

// groupUsage is unknown without /proc: init is timed by the wall clock.
func groupUsage(pgid int) (cpu time.Duration, busy, ok bool) { return 0, false, false }

// ownUsage is unknown without /proc.
func ownUsage(pid int) (cpu time.Duration, busy, ok bool) { return 0, false, false }
