//go:build linux

package hostns

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"

	vnetns "github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// A host's clock. A host may read a CLOCK_MONOTONIC shifted from the
// owner's (SetClock): its processes run in a Linux time namespace with
// that offset. A multi-threaded program cannot enter a time namespace
// (setns needs a single thread), only make one for the children of the
// thread that calls unshare(CLONE_NEWTIME), whose offsets it may write
// until a child enters. So each shifted host has a thread of its own, a
// spawner: locked, in the host's network namespace, having made the
// host's time namespace, it forks every process Start starts on the host.
// It is never unlocked (no other goroutine may fork from it) and lives
// until Close: a child's parent-death signal fires when the thread that
// forked it ends, not the process.

// spawn is a request to a host's spawner.
type spawn struct {
	cmd  *exec.Cmd
	done chan error
}

// SetClock shifts the CLOCK_MONOTONIC of every process Start starts on
// host i from now on by off, before any is started there; 0 leaves the
// owner's.
func (s *Set) SetClock(i int, off time.Duration) error {
	h := &s.hosts[i]
	if off == 0 || h.spawns != nil {
		if h.Clock != off {
			return fmt.Errorf("%s's clock is shifted already (by %v)", h.Name, h.Clock)
		}
		return nil
	}
	h.spawns = make(chan spawn)
	ready := make(chan error, 1)
	go spawner(*h, off, ready)
	if err := <-ready; err != nil {
		h.spawns = nil
		return err
	}
	h.Clock = off
	return nil
}

// spawner makes host h's time namespace on a thread of its own and
// starts the commands sent to it there until h.spawns is closed.
func spawner(h Host, off time.Duration, ready chan<- error) {
	runtime.LockOSThread()
	if err := vnetns.Set(h.ns); err != nil {
		ready <- fmt.Errorf("entering %s: %w", h.Name, err)
		return
	}
	if err := unix.Unshare(unix.CLONE_NEWTIME); err != nil {
		ready <- fmt.Errorf("making a time namespace for %s: %w", h.Name, err)
		return
	}
	// The file is of the thread group's directories only: /proc/TID,
	// which every thread has though none lists it, is this thread's.
	path := fmt.Sprintf("/proc/%d/timens_offsets", unix.Gettid())
	if err := os.WriteFile(path, timensOffset(off), 0); err != nil {
		ready <- fmt.Errorf("shifting %s's monotonic clock by %v: %w", h.Name, off, err)
		return
	}
	ready <- nil
	for sp := range h.spawns {
		sp.done <- sp.cmd.Start()
	}
}

// startShifted starts cmd on shifted host h, by its spawner.
func startShifted(h Host, cmd *exec.Cmd) error {
	done := make(chan error, 1)
	h.spawns <- spawn{cmd: cmd, done: done}
	return <-done
}

// stopSpawners ends the hosts' spawners, and with their threads the
// parent-death signal of what they started.
func (s *Set) stopSpawners() {
	for i := range s.hosts {
		if h := &s.hosts[i]; h.spawns != nil {
			close(h.spawns)
			h.spawns = nil
		}
	}
}

// timensOffset is the line of /proc/PID/timens_offsets that shifts
// CLOCK_MONOTONIC by off: seconds, and nanoseconds in [0, 1e9).
func timensOffset(off time.Duration) []byte {
	sec, nsec := off/time.Second, off%time.Second
	if nsec < 0 {
		sec, nsec = sec-1, nsec+time.Second
	}
	return fmt.Appendf(nil, "monotonic %d %d\n", int64(sec), int64(nsec))
}
