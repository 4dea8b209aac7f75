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

// SetClock shifts the CLOCK_MONOTONIC of every process Start starts on
// host i from now on by off (0: the owner's clock). Each such process
// runs in a time namespace of its own with that offset: one made per
// process, since a multi-threaded program may not enter an existing time
// namespace (setns needs a single thread), only make one for its children
// (unshare); processes of one host read the same clock all the same.
func (s *Set) SetClock(i int, off time.Duration) { s.hosts[i].Clock = off }

// startShifted starts cmd in host h's network namespace and in a new time
// namespace whose CLOCK_MONOTONIC reads h.Clock ahead of the owner's. The
// thread that does so is never unlocked: after unshare(CLONE_NEWTIME) its
// children enter the new namespace (the thread itself stays in the old
// one), so no other goroutine may fork from it; it ends with the goroutine.
func (s *Set) startShifted(h Host, cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		done <- func() error {
			if err := vnetns.Set(h.ns); err != nil {
				return fmt.Errorf("entering %s: %w", h.Name, err)
			}
			if err := unix.Unshare(unix.CLONE_NEWTIME); err != nil {
				return fmt.Errorf("making a time namespace for %s: %w", h.Name, err)
			}
			// The offsets may be written only before a process enters. The
			// file is of the thread group's directories only: /proc/TID,
			// which every thread has though none lists it, is this thread's.
			path := fmt.Sprintf("/proc/%d/timens_offsets", unix.Gettid())
			if err := os.WriteFile(path, timensOffset(h.Clock), 0); err != nil {
				return fmt.Errorf("shifting %s's monotonic clock by %v: %w", h.Name, h.Clock, err)
			}
			return cmd.Start()
		}()
	}()
	return <-done
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
