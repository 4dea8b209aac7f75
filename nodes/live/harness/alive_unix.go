//go:build unix

package harness

import (
	"errors"
	"io/fs"
	"syscall"
)

// processAlive: signal 0 checks existence; EPERM means it exists under
// another user.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownedByMe reports whether this user owns the file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == syscall.Getuid()
}
