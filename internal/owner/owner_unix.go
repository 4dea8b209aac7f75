//go:build unix

package owner

import (
	"errors"
	"io/fs"
	"syscall"
)

// OwnedByMe reports whether this user owns the file.
func OwnedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == syscall.Getuid()
}

// pidRunning reports whether a process with pid runs (signal 0 reaches
// it, or it runs as another user).
func pidRunning(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
