//go:build unix && !linux

package harness

import "syscall"

// nodeSysProcAttr puts a node in a process group of its own; a node also
// exits when its control channel (stdin) closes.
func nodeSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
