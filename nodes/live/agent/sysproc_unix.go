//go:build unix && !linux

package agent

import "syscall"

// sysProcAttr puts a process in a group of its own, so that signals reach
// what it starts; without Linux's parent-death signal, the agent's own
// clean-up (killAll) is all that kills it when the agent goes.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
