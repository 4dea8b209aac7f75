//go:build unix

package harness

import (
	"errors"
	"syscall"
)

// processAlive: signal 0 checks existence; EPERM means it exists under
// another user.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
