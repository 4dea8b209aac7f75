//go:build unix

package harness

import "syscall"

// A node leads a process group of its own (nodeSysProcAttr): signals go to
// the group, so nothing it might start survives it.

// killGroup is a crash: SIGKILL.
func killGroup(pid int) {
	syscall.Kill(-pid, syscall.SIGKILL)
	syscall.Kill(pid, syscall.SIGKILL)
}

// pauseGroup is a pause: SIGSTOP.
func pauseGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGSTOP) }

// resumeGroup ends a pause: SIGCONT.
func resumeGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGCONT) }
