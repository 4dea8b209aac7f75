//go:build unix

package external

import "syscall"

// killGroup sends SIGKILL to process group pgid; nil when it reached
// someone.
func killGroup(pgid int) error { return syscall.Kill(-pgid, syscall.SIGKILL) }

// killPid sends SIGKILL to one process.
func killPid(pid int) { syscall.Kill(pid, syscall.SIGKILL) }
